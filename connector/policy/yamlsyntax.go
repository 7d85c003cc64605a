package policy

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"
)

// syntaxLine finds the line a YAML syntax error is really on. yaml.v3
// reports the line where the enclosing block began (its "context"), not
// the line it could not read: a bad indent or an unclosed quote at line
// 205 of the default policy is reported at line 65, where the allow list
// starts. The line at fault is the one after the longest prefix of the
// file that still parses: every prefix that includes the bad line fails,
// and scanning from the end lets a valid string spanning several lines
// earlier in the file (whose own prefixes fail) be passed over. It runs
// only for a file that failed to parse; 0 when no prefix parses.
func syntaxLine(data []byte) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	end := len(data)
	for k := len(lines) - 1; k > 0; k-- {
		end -= len(lines[k])
		var n yaml.Node
		if yaml.Unmarshal(data[:end], &n) == nil {
			return k + 1
		}
	}
	return 1
}

// syntaxHint says in plain words what is wrong with line, which yaml.v3
// could not read: an unclosed quote or an indent that fits no block.
func syntaxHint(line, yamlMsg string) string {
	if unclosedQuote(line) {
		return "unclosed quote (a string opened on this line is not closed on it)"
	}
	switch {
	case strings.Contains(yamlMsg, "indicator"), strings.Contains(yamlMsg, "expected key"),
		strings.Contains(yamlMsg, "mapping values are not allowed"), strings.Contains(yamlMsg, "block"):
		return "bad indentation: this line does not line up with the list or mapping it belongs to (" + yamlMsg + ")"
	}
	return yamlMsg
}

// unclosedQuote reports whether line opens a quoted string it does not
// close (a comment after the value does not count).
func unclosedQuote(line string) bool {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == 0 && c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return false
		case quote == 0 && (c == '"' || c == '\'') && quoteOpens(line, i):
			quote = c
		case quote == '"' && c == '\\':
			i++
		case quote == '\'' && c == '\'' && i+1 < len(line) && line[i+1] == '\'':
			i++
		case quote != 0 && c == quote:
			quote = 0
		}
	}
	return quote != 0
}

// quoteOpens reports whether the quote at line[i] starts a quoted
// scalar: it comes first in its value (after indentation, "- ", ": ", "[",
// "{" or ","), not inside a plain word such as don't.
func quoteOpens(line string, i int) bool {
	before := strings.TrimRight(line[:i], " \t")
	return before == "" || strings.HasSuffix(before, "-") || strings.HasSuffix(before, ":") ||
		strings.HasSuffix(before, "[") || strings.HasSuffix(before, "{") || strings.HasSuffix(before, ",")
}
