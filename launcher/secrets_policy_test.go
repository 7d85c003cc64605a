package launcher

import (
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/policy"
)

// What the jail hides, the default policy's analyzer never allows to be
// read (connector mode runs without a jail for agents whose hooks cannot
// rewrite a command, and where the jail cannot be built): cat
// ~/.vault-token, ~/.pgpass and ~/.cargo/credentials.toml were allowed.
func TestDefaultPolicyEscalatesHomeSecrets(t *testing.T) {
	base := t.TempDir()
	root, home := filepath.Join(base, "proj"), filepath.Join(base, "home")
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	p, err := policy.Parse("policy.yaml", policy.DefaultYAML())
	if err != nil {
		t.Fatal(err)
	}
	e, err := policy.New(root, p, policy.Options{Home: home, StateDir: filepath.Join(base, "state", "sandbox"),
		CaseInsensitive: func(string) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range HomeSecrets {
		for _, target := range []string{filepath.Join(home, s)} {
			if d := e.Read(target, root); d.Decision == policy.Allow {
				t.Errorf("read of %s is allowed by the default policy; the jail hides it", target)
			}
			if d := e.Shell("cat "+target, root); d.Decision == policy.Allow {
				t.Errorf("cat %s is allowed by the default policy; the jail hides it", target)
			}
		}
	}
}
