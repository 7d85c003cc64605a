//go:build linux

package audit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
	"golang.org/x/sys/unix"
)

// mountTmpfs mounts a tmpfs of size on dir until the test ends.
func mountTmpfs(t *testing.T, dir, size string) {
	t.Helper()
	testenv.RequireRoot(t)
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		testenv.Skip(t, "cannot mount a tmpfs: "+err.Error())
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
}

// A full audit dir refuses the action with a clear error, leaves no
// partial line behind, and appends again once there is room.
func TestAuditDirFull(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	mountTmpfs(t, e.dir(), "64k")
	l := e.open(t)
	defer l.Close()
	if _, err := l.Append(testEntry(0)); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(e.dir(), "filler")
	fillUp(t, filler)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = l.Append(testEntry(i))
	}
	if !errors.Is(err, ErrAppend) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("append on a full dir: %v", err)
	}
	t.Log(err)
	e.mustVerifyOK(t) // no torn line from the failed write
	os.Remove(filler)
	if _, err := l.Append(testEntry(1)); err != nil {
		t.Fatalf("append after freeing space: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := e.mustVerifyOK(t); len(rep.Warnings) != 0 {
		t.Fatalf("warnings %v", rep.Warnings)
	}
}

func fillUp(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for range 1 << 12 {
		if _, err := f.Write(buf); errors.Is(err, syscall.ENOSPC) {
			return
		}
	}
	t.Fatal("tmpfs never filled up")
}

// A read-only audit dir refuses the action with a clear error: a read-only
// mount as root (root ignores modes), chmod otherwise.
func TestAuditDirReadOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if os.Geteuid() == 0 {
		mountTmpfs(t, e.dir(), "1m")
	}
	e.appendN(t, 3)
	if os.Geteuid() == 0 {
		if err := unix.Mount("", e.dir(), "", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
			t.Fatalf("remount read-only: %v", err)
		}
	} else {
		for _, p := range []string{e.logPath(), filepath.Join(e.dir(), lockFile), e.dir()} {
			if err := os.Chmod(p, 0o500); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(func() { os.Chmod(e.dir(), 0o700) })
	}
	l, err := Open(e.f, e.st)
	if err == nil {
		_, err = l.Append(testEntry(4))
		l.Close()
	}
	if !errors.Is(err, ErrAppend) || !(errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES)) {
		t.Fatalf("append on a read-only dir: %v", err)
	}
	t.Log(err)
	e.mustVerifyOK(t)
}
