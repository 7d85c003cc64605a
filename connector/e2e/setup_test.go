package e2e

import (
	"os"
	"strings"

	_ "github.com/sandbox-dev/sandbox/connector/claude"
	_ "github.com/sandbox-dev/sandbox/connector/codex"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// initProject runs `sandbox init DIR --AGENT`. Until that command exists
// in this tree it does the same through the packages: folder layout,
// accepted default policy, the agent integration and the manifest.
func (e *env) initProject(dir, agent string) {
	e.t.Helper()
	out, err := e.sandbox("init", dir, "--"+agent)
	if err == nil {
		return
	}
	if !strings.Contains(out, "unknown command") {
		e.t.Fatalf("sandbox init: %v\n%s", err, out)
	}
	f, err := folder.New(dir)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, d := range f.Subdirs() {
		if err := os.MkdirAll(d, 0o755); err != nil {
			e.t.Fatal(err)
		}
	}
	if err := os.WriteFile(f.Policy(), policy.DefaultYAML(), 0o644); err != nil {
		e.t.Fatal(err)
	}
	st, err := userstate.Open(true)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := policy.Accept(f, st, policy.DefaultYAML()); err != nil {
		e.t.Fatal(err)
	}
	integ, err := install.Lookup(agent)
	if err != nil {
		e.t.Fatal(err)
	}
	ch, err := integ.Install(install.Env{Folder: f, Exe: sandboxBin}, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := (install.Manifest{agent: ch}).Save(f); err != nil {
		e.t.Fatal(err)
	}
}
