package shell

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// typicalCommands are the common Bash calls of coding agents.
var typicalCommands = []string{
	"git status",
	"ls -la",
	"npm test",
	"go test ./...",
	"cat f | grep x",
	"git diff HEAD~1 -- file.go",
	"cd dir && make test",
	"git log --oneline -20",
	"grep -rn \"TODO\" src/",
	"python -m pytest -q tests/test_api.py",
}

func BenchmarkAnalyzeTypical(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Analyze(typicalCommands[i%len(typicalCommands)], testOpts)
	}
}

func BenchmarkAnalyzeEach(b *testing.B) {
	for _, cmd := range typicalCommands {
		b.Run(cmd, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Analyze(cmd, testOpts)
			}
		})
	}
}

func BenchmarkAnalyzeArgv(b *testing.B) {
	argv := []string{"git", "diff", "HEAD~1", "--", "file.go"}
	b.ReportAllocs()
	for b.Loop() {
		AnalyzeArgv(argv, testOpts)
	}
}

func BenchmarkAnalyzeComplex(b *testing.B) {
	script := `cd sub && for f in *.go; do sed -i 's/a/b/' "$f"; done; find . -name '*.tmp' | xargs rm -f; echo done > log.txt`
	b.ReportAllocs()
	for b.Loop() {
		Analyze(script, testOpts)
	}
}

// BenchmarkParseOnly is the floor: the bash parser alone on the same
// commands, to compare Analyze against under the same machine load.
func BenchmarkParseOnly(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p := parsers.Get().(*syntax.Parser)
		_, _ = p.Parse(strings.NewReader(typicalCommands[i%len(typicalCommands)]), "")
		parsers.Put(p)
	}
}
