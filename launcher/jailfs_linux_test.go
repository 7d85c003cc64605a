//go:build linux

package launcher

import (
	"os"
	"path/filepath"
	"testing"
)

func TestJailFiles(t *testing.T) {
	e := newJailEnv(t)
	root := e.project.Root
	link := filepath.Join(root, "state-link")
	if err := os.Symlink(e.secret, link); err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	// A folder of the test's own in the shared temp dir, made before the
	// jail starts: without a mount namespace the jail cannot hide a socket
	// in /tmp but by granting /tmp's entries one by one instead of /tmp
	// (whatever left a socket there: tmux, X11, an IDE, an agent CLI), so a
	// new file right in /tmp is refused then, and one in a folder is not.
	scratch, err := os.MkdirTemp("", "jail-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	tests := []struct {
		name   string
		probe  string
		args   []string
		wantOK bool
		// except names the mode where the opposite holds, on purpose:
		// with namespaces, escalations/ itself is one writable mount so
		// that rename(2) from tmp/ to pending/ stays on it; its other
		// entries (claimed/, done/, quarantine/) are read-only mount
		// points that cannot be written, renamed or replaced.
		except string
		only   string // the one mode the case is checked in, if any
	}{
		{"write in project", "write", []string{filepath.Join(root, "src/new.go")}, true, "", ""},
		{"overwrite in project", "write", []string{filepath.Join(root, "src/main.go")}, true, "", ""},
		// With namespaces the jail's /tmp is its own: the host's folders
		// in it are not there, and a file right in it is the jail's.
		{"write in temp dir", "write", []string{filepath.Join(scratch, "new")}, true, "namespaces", ""},
		{"write in private temp dir", "write", []string{filepath.Join(os.TempDir(), "jail-tmp-"+filepath.Base(root))}, true, "", "namespaces"},
		{"write outside project", "write", []string{"/etc/sandbox-jail-test"}, false, "", ""},
		{"write in home", "write", []string{filepath.Join(home, ".sandbox-jail-test")}, false, "", ""},
		{"write policy.yaml", "write", []string{e.project.Policy()}, false, "", ""},
		{"write git hook", "write", []string{filepath.Join(root, ".git/hooks/x")}, false, "", ""},
		{"overwrite git hook", "write", []string{filepath.Join(root, ".git/hooks/pre-commit")}, false, "", ""},
		{"write git config", "write", []string{filepath.Join(root, ".git/config")}, false, "", ""},
		{"write .mcp.json", "write", []string{filepath.Join(root, ".mcp.json")}, false, "", ""},
		{"write .claude settings", "write", []string{filepath.Join(root, ".claude/settings.json")}, false, "", ""},
		{"write done/", "write", []string{filepath.Join(e.project.Done(), "x.json")}, false, "", ""},
		{"write claimed/", "write", []string{filepath.Join(e.project.Claimed(), "x.json")}, false, "", ""},
		{"write audit/", "write", []string{filepath.Join(e.project.Audit(), "log")}, false, "", ""},
		{"write escalations/", "write", []string{filepath.Join(e.project.Escalations(), "x")}, false, "namespaces", ""},
		{"rename done dir away", "rename", []string{e.project.Done(), filepath.Join(e.project.Escalations(), "done-moved")}, false, "", ""},
		{"rename claimed dir away", "rename", []string{e.project.Claimed(), filepath.Join(e.project.Escalations(), "c2")}, false, "", ""},
		{"write escalations/tmp", "write", []string{filepath.Join(e.project.Tmp(), "r1.json")}, true, "", ""},
		{"rename tmp to pending", "rename", []string{filepath.Join(e.project.Tmp(), "r1.json"), filepath.Join(e.project.Pending(), "r1.json")}, true, "", ""},
		{"rename pending to done", "rename", []string{filepath.Join(e.project.Pending(), "r1.json"), filepath.Join(e.project.Done(), "r1.json")}, false, "", ""},
		{"rename pending dir away", "rename", []string{e.project.Pending(), filepath.Join(root, "pending-moved")}, false, "", ""},
		{"rename .sandbox away", "rename", []string{e.project.Dir(), filepath.Join(root, "sandbox-moved")}, false, "", ""},
		{"read state dir", "read", []string{e.secret}, false, "", ""},
		{"read state through symlink", "read", []string{link}, false, "", ""},
		{"read project file", "read", []string{filepath.Join(root, "src/main.go")}, true, "", ""},
		{"read system file", "read", []string{"/etc/passwd"}, true, "", ""},
		{"read raw disk device", "read", []string{"/dev/mem"}, false, "", ""},
	}
	cases := make([]probeCase, len(tests))
	for i, tc := range tests {
		cases[i] = probeCase{tc.name, tc.probe, tc.args}
	}
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			out, _ := runJailed(t, e.options(m, e.batchArgv(cases)...))
			got := batchResults(t, out, len(cases))
			for i, tc := range tests {
				if tc.only != "" && tc.only != m.name {
					continue
				}
				t.Run(tc.name, func(t *testing.T) {
					want := tc.wantOK != (tc.except == m.name)
					if (got[i] == "ok") != want {
						t.Errorf("%s %v: got %q, want ok=%v", tc.probe, tc.args, got[i], want)
					}
				})
			}
			// whatever happened inside, the protected files are intact
			for _, p := range []string{filepath.Join(root, ".mcp.json"), filepath.Join(root, ".git/hooks/pre-commit")} {
				if b, err := os.ReadFile(p); err != nil || string(b) != "original" {
					t.Errorf("%s changed: %q %v", p, b, err)
				}
			}
			os.Remove(filepath.Join(e.project.Pending(), "r1.json"))
			os.Remove(filepath.Join(e.project.Escalations(), "x"))
		})
	}
}
