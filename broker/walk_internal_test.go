//go:build unix

package broker

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWalkTrustedLinks exercises the outside-root rule with a trust
// predicate chosen by inode (as root, systemLink trusts nothing).
func TestWalkTrustedLinks(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"real/sub", "other"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"rel":     "real",                      // relative
		"abs":     filepath.Join(base, "real"), // absolute
		"dotdot":  "other/../real",             // resolved lexically over real dirs
		"chain":   "planted/sub",               // trusted, then an untrusted link
		"planted": "real",                      // not trusted
		"loopa":   "loopb", "loopb": "loopa",   // a loop of trusted links
	}
	ino := map[uint64]bool{}
	for name, target := range links {
		p := filepath.Join(base, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		var st unix.Stat_t
		unix.Lstat(p, &st)
		if name != "planted" {
			ino[uint64(st.Ino)] = true
		}
	}
	trust := func(st *unix.Stat_t) bool { return ino[uint64(st.Ino)] }
	want := filepath.Join(base, "real/sub")
	tests := []struct {
		name  string
		trust linkTrust
		via   string
		ok    bool
	}{
		{"relative trusted", trust, "rel", true},
		{"absolute trusted", trust, "abs", true},
		{"dotdot in target", trust, "dotdot", true},
		{"untrusted", nil, "rel", false},
		{"trusted leading to untrusted", trust, "chain", false},
		{"loop", trust, "loopa", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				t.Fatal(err)
			}
			dirs := append(strings.Split(strings.TrimPrefix(base, "/"), "/"), tc.via)
			if tc.via != "chain" {
				dirs = append(dirs, "sub")
			}
			fd, err := walk(root, "/", dirs, false, tc.trust)
			if !tc.ok {
				if !errors.Is(err, ErrSymlink) {
					t.Fatalf("err %v, want ErrSymlink", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			var a, b unix.Stat_t
			unix.Fstat(fd, &a)
			unix.Stat(want, &b)
			if a.Ino != b.Ino || a.Dev != b.Dev {
				t.Errorf("walk opened the wrong directory")
			}
		})
	}
}
