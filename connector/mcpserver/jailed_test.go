package mcpserver

import (
	"context"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/policy"
)

// passJailer stands for connector mode's jailer: the test runs the
// command as it came; what matters is that the server will jail it.
type passJailer struct{}

func (passJailer) Wrap(script, _ string) (string, error) { return script, nil }

// TestRunPrivilegedDecidesJailedWhenItJails: run_privileged decides with
// the jailed policy when the command will run in the project jail
// (whatever the policy's defer_allow, which concerns only the agent's own
// prompts), and with the plain policy when it will not.
func TestRunPrivilegedDecidesJailedWhenItJails(t *testing.T) {
	p, err := policy.Parse("policy.yaml", []byte("version: 1\nshell:\n  allow:\n    - {pattern: \"echo jailed-only **\", jailed: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, jail := range []hook.Jailer{passJailer{}, nil} {
		fx := newFixture(t)
		eng, err := policy.New(fx.f.Root, p, policy.Options{})
		if err != nil {
			t.Fatal(err)
		}
		fx.srv.opts.Open = func(context.Context) (*hook.Core, error) {
			return &hook.Core{Folder: fx.f, Policy: eng, Jail: jail, Options: hook.Options{DeferAllow: true},
				Queue: func() (hook.Queue, error) { return keeper{fx.q}, nil }}, nil
		}
		res := fx.client().call(t, ToolRun, map[string]any{"command": "echo jailed-only x", "reason": "test", "wait_seconds": 1}, nil)
		o := outcome(t, res)
		if allowed := o.Status == StatusAllowed; allowed != (jail != nil) {
			t.Errorf("jailer %v: outcome %+v", jail != nil, o)
		}
	}
}
