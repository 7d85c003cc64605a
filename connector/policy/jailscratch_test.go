package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// What the jail itself contains needs no rule on the jailed engine: a
// connection to its own loopback (the host's services are forwarded only
// by a network rule, which then decides) and a write to the temp dirs
// (resolved: a link there into the home is decided where it leads).
// Unjailed both still ask, and rules still win.
func TestJailedScratchAndLoopback(t *testing.T) {
	env := newTestEnv(t)
	tmp, err := os.MkdirTemp("/tmp", "jailscratch-")
	if err != nil {
		t.Skip("no /tmp here: " + err.Error())
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	link := filepath.Join(tmp, "home-link")
	if err := os.Symlink(env.home, link); err != nil {
		t.Fatal(err)
	}
	e := env.engine(t, DefaultYAML())
	j := e.ForJail()
	for _, tc := range []struct {
		script           string
		jailed, unjailed Tier
	}{
		{"curl -s http://127.0.0.1:8080/health", Allow, Escalate},
		{"curl -s http://localhost:3000/", Allow, Escalate},
		{"curl -s 'http://[::1]:3000/'", Allow, Escalate},
		{"curl -s https://unknown.example.org/", Escalate, Escalate},
		{"curl -s http://169.254.169.254/latest/meta-data/", Deny, Deny},
		{"cp README.md " + tmp + "/x.bak", Allow, Escalate},
		{"tar -czf " + tmp + "/src.tgz src", Allow, Escalate},
		{"cp README.md " + link + "/.bashrc", Escalate, Escalate},
		{"cp README.md ~/x", Escalate, Escalate},
		{"cp README.md /etc/x", Escalate, Escalate},
	} {
		for _, c := range []struct {
			eng  *Engine
			want Tier
		}{{j, tc.jailed}, {e, tc.unjailed}} {
			if d := c.eng.Shell(tc.script, ""); d.Decision != c.want {
				t.Errorf("jailed=%v %q: %s, want %s", c.eng.Jailed(), tc.script, dump(d), c.want)
			}
		}
	}
}
