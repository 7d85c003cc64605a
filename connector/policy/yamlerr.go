package policy

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// The patterns and names of yaml.v3's messages, built the first time a
// policy file has an error: compiling them at init cost every sandbox
// process (every hook and shim call) about 35 us and 19 KB.
var (
	yamlLineRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`) })
	unknownKeyRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^field (\S+) not found in type \S+$`) })
	goTypeNamesRE = sync.OnceValue(func() *strings.Replacer {
		return strings.NewReplacer(
			"policy.triggerDoc", "a mapping of allow/escalate/deny lists",
			"policy.ciRulesDoc", "a mapping of approve/deny lists",
			"policy.ciDoc", "a mapping of triggers",
			"policy.fileDoc", "a policy mapping",
			"policy.Limits", "a mapping (memory, pids, cpu)",
			"policy.brokerDoc", "a mapping (env)",
			"policy.hookDoc", "a mapping (wait)",
			"policy.runDoc", "a mapping (env)",
			"policy.runEnvDoc", "a mapping (keep, drop)",
			"[]yaml.Node", "a list",
		)
	})
)

// yamlErrors turns a yaml.v3 error into FileErrors with line numbers.
func yamlErrors(file string, err error) FileErrors {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		var out FileErrors
		for _, e := range te.Errors {
			out = append(out, yamlLine(file, e))
		}
		return out
	}
	return FileErrors{yamlLine(file, err.Error())}
}

// yamlSyntaxErrors is yamlErrors for a file that did not parse: the error
// is put at the line yaml.v3 could not read (yamlsyntax.go), not at the
// start of the block around it.
func yamlSyntaxErrors(file string, data []byte, err error) FileErrors {
	fe := yamlLine(file, err.Error())
	n := syntaxLine(data)
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		return FileErrors{fe}
	}
	if n != fe.Line {
		fe.Line, fe.Msg = n, syntaxHint(lines[n-1], fe.Msg)
	} else if unclosedQuote(lines[n-1]) {
		fe.Msg = syntaxHint(lines[n-1], fe.Msg)
	}
	return FileErrors{fe}
}

func yamlLine(file, msg string) *FileError {
	msg = strings.TrimPrefix(msg, "yaml: ")
	fe := &FileError{File: file, Msg: msg}
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		fe.Line, _ = strconv.Atoi(m[1])
		fe.Msg = m[2]
	}
	if m := unknownKeyRE().FindStringSubmatch(fe.Msg); m != nil {
		fe.Msg = "unknown key " + strconv.Quote(m[1])
	}
	fe.Msg = goTypeNamesRE().Replace(fe.Msg)
	return fe
}
