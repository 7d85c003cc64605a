//go:build linux

package jail_linux

import (
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// listenUnix listens on a unix socket at p until the test ends.
func listenUnix(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	t.Cleanup(func() { ln.Close() })
}

// TestTableSockets: the kernel's table places every live socket in a
// shared scratch tree, at any depth; a socket it cannot place for
// certain (its file renamed, its directory moved, a second link, bound
// by a relative path) sends the init back to walking the tree.
func TestTableSockets(t *testing.T) {
	tests := []struct {
		name   string
		make   func(t *testing.T, root string) string // returns the socket the jail must not reach
		placed bool
	}{
		{"at the top", func(t *testing.T, root string) string {
			p := filepath.Join(root, "x.sock")
			listenUnix(t, p)
			return p
		}, true},
		{"six levels down", func(t *testing.T, root string) string {
			p := filepath.Join(root, "a", "b", "c", "d", "e", "x.sock")
			listenUnix(t, p)
			return p
		}, true},
		{"renamed after the bind", func(t *testing.T, root string) string {
			p := filepath.Join(root, "x.sock")
			listenUnix(t, p)
			mustRename(t, p, filepath.Join(root, "y.sock"))
			return filepath.Join(root, "y.sock")
		}, false},
		{"its directory moved", func(t *testing.T, root string) string {
			listenUnix(t, filepath.Join(root, "app", "x.sock"))
			mustRename(t, filepath.Join(root, "app"), filepath.Join(root, "other"))
			return filepath.Join(root, "other", "x.sock")
		}, false},
		{"a second link", func(t *testing.T, root string) string {
			p := filepath.Join(root, "x.sock")
			listenUnix(t, p)
			if err := os.Link(p, filepath.Join(root, "z")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(root, "z")
		}, false},
		{"bound by a relative path", func(t *testing.T, root string) string {
			t.Chdir(root)
			listenUnix(t, "rel.sock")
			return filepath.Join(root, "rel.sock")
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			placed := tc.placed
			if _, ok := tableSockets([]string{root}); !ok {
				// a socket of another program on this file system cannot
				// be placed: every start walks here
				t.Log("the table cannot place another program's socket: checking the walk")
				placed = false
			}
			want := tc.make(t, root)
			got, ok := tableSockets([]string{root})
			if ok != placed {
				t.Fatalf("placed %v, want %v (found %q)", ok, placed, got)
			}
			if ok && !slices.Contains(got, want) {
				t.Errorf("found %q, not %s", got, want)
			}
			if !ok && !slices.Contains(append(got, walkSockets(t, root)...), want) {
				t.Errorf("the walk the init falls back to does not find %s", want)
			}
		})
	}
}

// TestTableSocketsOutside: sockets outside the trees are left to the
// other hiding rules, and a socket file nobody listens on is nothing
// (connect fails anyway).
func TestTableSocketsOutside(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, out := filepath.Join(base, "tmp"), filepath.Join(base, "home", "x.sock")
	listenUnix(t, out)
	stale := filepath.Join(root, "stale.sock")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	got, ok := tableSockets([]string{root})
	if len(got) != 0 {
		t.Errorf("tableSockets = %q, %v; want nothing, placed", got, ok)
	}
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// TestMountDevs: the devices a socket's file in the shared trees can be
// on include the mount holding each tree as mountinfo gives it (the
// kernel's socket table reports that one where stat differs, as on a
// btrfs subvolume) and the mounts below; not other mounts.
func TestMountDevs(t *testing.T) {
	const mountinfo = `22 1 0:50 /@ / rw,relatime shared:1 - btrfs /dev/vda2 rw
23 22 0:51 / /proc rw - proc proc rw
24 22 0:50 /@var /var rw,relatime shared:2 - btrfs /dev/vda2 rw
25 24 0:60 / /var/tmp/my\040build rw - tmpfs tmpfs rw
26 22 0:61 / /tmp rw - tmpfs tmpfs rw
27 22 0:62 / /tmpx rw - tmpfs tmpfs rw
`
	devs := map[uint32]bool{kernelDev(0, 52): true} // what stat says of /var/tmp
	if !mountDevs(strings.NewReader(mountinfo), []string{"/tmp", "/var/tmp"}, devs) {
		t.Fatal("mountDevs failed")
	}
	for _, d := range []struct {
		min  uint32
		want bool
	}{{50, true}, {52, true}, {60, true}, {61, true}, {51, false}, {62, false}} {
		if devs[kernelDev(0, d.min)] != d.want {
			t.Errorf("0:%d: %v, want %v", d.min, devs[kernelDev(0, d.min)], d.want)
		}
	}
}

// walkSockets lists the sockets below root, as the init's walk
// (jailinit's findSockets) finds them when the table cannot place one.
func walkSockets(t *testing.T, root string) []string {
	t.Helper()
	var socks []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type()&fs.ModeSocket != 0 {
			socks = append(socks, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return socks
}

// TestTmpDirCacheSeesEveryChange: the socket dirs of a shared tree are
// listed again whenever an entry was added, removed or renamed in it, and
// a tree changed within the last clock ticks is never taken from the
// cache.
func TestTmpDirCacheSeesEveryChange(t *testing.T) {
	root := t.TempDir()
	c := &tmpDirCache{m: map[string]tmpDirList{}}
	mkdir := func(name string) {
		t.Helper()
		if err := os.Mkdir(filepath.Join(root, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	want := func(names ...string) {
		t.Helper()
		var full []string
		for _, n := range names {
			full = append(full, filepath.Join(root, n))
		}
		got := slices.Clone(c.list(root))
		slices.Sort(got)
		if !slices.Equal(got, full) {
			t.Errorf("list = %q, want %q", got, full)
		}
	}
	mkdir("ssh-a")
	want("ssh-a")
	if _, cached := c.m[root]; cached {
		t.Error("a tree changed a moment ago was cached")
	}
	time.Sleep(2 * racyTree)
	want("ssh-a")
	if _, cached := c.m[root]; !cached {
		t.Error("an unchanged tree was not cached")
	}
	mkdir("tmux-0")
	want("ssh-a", "tmux-0")
	time.Sleep(2 * racyTree)
	want("ssh-a", "tmux-0")
	if err := os.Rename(filepath.Join(root, "tmux-0"), filepath.Join(root, "plain")); err != nil {
		t.Fatal(err)
	}
	want("ssh-a")
	time.Sleep(2 * racyTree)
	if err := os.Rename(filepath.Join(root, "plain"), filepath.Join(root, "ssh-b")); err != nil {
		t.Fatal(err)
	}
	want("ssh-a", "ssh-b")
}
