//go:build unix

package broker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An approved command's PATH keeps the approver's toolchain dirs and none
// the agent could plant a program in.
func TestTrustedPATH(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "proj")
	tool := filepath.Join(os.Getenv("HOME"), ".sandbox-test-toolchain-bin")
	open := filepath.Join(os.Getenv("HOME"), ".sandbox-test-open-bin")
	for _, d := range []string{filepath.Join(root, "node_modules", ".bin"), tool, open} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.RemoveAll(tool); os.RemoveAll(open) })
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(os.Getenv("HOME"), ".sandbox-test-link-bin")
	if err := os.Symlink(filepath.Join(root, "node_modules", ".bin"), link); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(link) })
	cur := strings.Join([]string{".", "bin", "", root, filepath.Join(root, "node_modules", ".bin"), "/tmp", "/tmp/x",
		"/var/tmp/y", open, link, "/nonexistent/bin", tool, "/usr/bin"}, ":")
	got := strings.Split(trustedPATH(cur, root), ":")
	if got[0] != tool {
		t.Errorf("the approver's toolchain dir is not first: %v", got)
	}
	if want := len(strings.Split(DefaultPATH, ":")) + 1; len(got) != want {
		t.Errorf("PATH %v: want %s then DefaultPATH's entries (with /usr/bin once)", got, tool)
	}
	for _, dir := range got {
		if dir != tool && !strings.Contains(":"+DefaultPATH+":", ":"+dir+":") {
			t.Errorf("plantable entry %q kept", dir)
		}
	}
}
