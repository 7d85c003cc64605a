package approver

import (
	"errors"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// One rule per escalated part: each must lift a part of this request,
// no more rules than parts, and together they must cover it.
func TestCheckPartsRefusesRulesThatDoNotFit(t *testing.T) {
	tf := newTestFolder(t)
	mem := withDefaultPolicy(t, tf)
	req := &queue.Request{Kind: queue.KindShell, Cwd: tf.f.Root,
		Shell: &queue.ShellPayload{Shell: "bash", Script: "npm install x && numfmt --to=iec 1024"}}
	sh := func(p string) policy.Remembered {
		return policy.Remembered{Trigger: policy.Shell, Tier: policy.Allow, Pattern: p}
	}
	tests := []struct {
		name  string
		rules []policy.Remembered
		ok    bool
	}{
		{"one per part", []policy.Remembered{sh("npm install **"), sh("numfmt --to=iec 1024")}, true},
		{"one part left", []policy.Remembered{sh("npm install **")}, false},
		{"a rule that lifts nothing here", []policy.Remembered{sh("npm install **"), sh("numfmt --to=iec 1024"), sh("curl **")}, false},
		{"an unrelated rule in place of one", []policy.Remembered{sh("npm install **"), sh("sudo **")}, false},
		{"the tier given is ignored: always remembers allows", []policy.Remembered{sh("npm install **"), {Trigger: policy.Shell, Tier: policy.Deny, Pattern: "numfmt --to=iec 1024"}}, true},
		{"nothing", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := mem.CheckParts(req, tc.rules)
			if (err == nil) != tc.ok {
				t.Fatalf("CheckParts: %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrNoPattern) {
				t.Errorf("error %v is not ErrNoPattern", err)
			}
		})
	}
}
