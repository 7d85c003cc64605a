package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// MakeReadOnly makes dir and the entries directly in it unwritable until
// the test ends (see MakePathsReadOnly).
func MakeReadOnly(t testing.TB, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	paths := []string{dir}
	for _, e := range entries {
		paths = append(paths, filepath.Join(dir, e.Name()))
	}
	MakePathsReadOnly(t, paths...)
}

// MakePathsReadOnly makes each path unwritable until the test ends: chmod
// 0500 for a normal user, the immutable attribute (chattr +i) for root,
// who ignores modes. Where chattr is missing or unsupported the test is
// skipped (Skip).
func MakePathsReadOnly(t testing.TB, paths ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		for _, p := range paths {
			os.Chmod(p, 0o500)
		}
		t.Cleanup(func() {
			for _, p := range paths {
				os.Chmod(p, 0o700)
			}
		})
		return
	}
	chattr := RequireCommand(t, "chattr")
	if out, err := exec.Command(chattr, append([]string{"+i"}, paths...)...).CombinedOutput(); err != nil {
		Skip(t, fmt.Sprintf("chattr +i unsupported here: %v %s", err, out))
	}
	t.Cleanup(func() { exec.Command(chattr, append([]string{"-i"}, paths...)...).Run() })
}
