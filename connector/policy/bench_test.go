package policy

import (
	"testing"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

// typical are the commonest Bash calls of coding agents.
var typical = []string{
	"git status",
	"ls -la",
	"npm test",
	"go test ./...",
	"cat f | grep x",
	"git diff",
	"git log --oneline -10",
	"rg foo src/",
	"make test",
	"cd src && go build ./...",
}

// BenchmarkShellTypical measures whole decisions (parse, analyse, match)
// on typical commands, with the jailed engine the hook uses where the jail
// can be built (make test runs the project's code: jailed only). Run with
// -cpu 1 for the one-core figure.
func BenchmarkShellTypical(b *testing.B) {
	env := newTestEnv(b)
	e := env.engine(b, DefaultYAML()).ForJail()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d := e.Shell(typical[i%len(typical)], ""); d.Decision != Allow {
			b.Fatalf("%q: %v\n%s", typical[i%len(typical)], d.Decision, dump(d))
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
}

// BenchmarkEffectsTypical measures the engine alone on analysed effects.
func BenchmarkEffectsTypical(b *testing.B) {
	env := newTestEnv(b)
	e := env.engine(b, DefaultYAML())
	inputs := [][]string{{"git", "status"}, {"ls", "-la"}, {"npm", "test"}, {"go", "test", "./..."}, {"grep", "x"}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in := inputs[i%len(inputs)]
		if d := e.decideEffects([]shell.Effect{lit(in...)}, ""); d.Decision != Allow {
			b.Fatal(d.Decision)
		}
	}
}
