// Package corpus reads the command corpora under connector/policy/testdata/
// corpus: the everyday commands the default policy must let through and
// the attacks it must not. The policy's tests decide every line; the
// jail's tests run the attacks the jailed policy lets through and check
// that the jail contained them. One reader, so that both see the same
// lines.
package corpus

import (
	"regexp"
	"strings"
)

// Root is the project root as the corpora write it; tests replace it with
// their fixture project's path.
const Root = "/home/dev/app"

// Line is one command of a corpus.
type Line struct {
	N   int    // its first line number in the file
	Cmd string // the bash script, here-document bodies included
	Tag string // the project kind after "\t# " (go, node, python, ...), or ""
}

// heredoc finds a here-document operator and its delimiter word
// (<<EOF, <<-EOF, << 'EOF', <<"EOF"), but not a here-string (<<<).
var heredoc = regexp.MustCompile(`(?:^|[^<])<<-?\s*(?:'([A-Za-z_]\w*)'|"([A-Za-z_]\w*)"|([A-Za-z_]\w*))`)

// Parse splits a corpus into its commands: one a line, `#` lines and blank
// lines skipped, a "\t# tag" suffix taken off. A line that opens a
// here-document goes on up to the line that holds only its delimiter (and
// the next line too when it starts with ")", closing a substitution).
func Parse(data string) []Line {
	var out []Line
	lines := strings.Split(data, "\n")
	for i := 0; i < len(lines); i++ {
		text := lines[i]
		if t := strings.TrimSpace(text); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		l := Line{N: i + 1}
		if cmd, tag, ok := strings.Cut(text, "\t# "); ok {
			text, l.Tag = cmd, strings.TrimSpace(tag)
		}
		body := []string{text}
		for _, m := range heredoc.FindAllStringSubmatch(text, -1) {
			delim := m[1] + m[2] + m[3]
			for i+1 < len(lines) {
				i++
				body = append(body, lines[i])
				if strings.TrimLeft(lines[i], "\t") == delim {
					break
				}
			}
		}
		// A command substitution closed after the delimiter (`)"` on
		// the next line) stays with the command.
		if len(body) > 1 && i+1 < len(lines) && strings.HasPrefix(lines[i+1], ")") {
			i++
			body = append(body, lines[i])
		}
		l.Cmd = strings.Join(body, "\n")
		out = append(out, l)
	}
	return out
}
