//go:build linux

package broker_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/sandbox-dev/sandbox/broker"
	"golang.org/x/sys/unix"
)

// swapper is a process of the agent's that can write the target's
// directory: it watches the directory and renames a file of its own over
// every temporary file that appears there, the moment it appears.
func swapper(t *testing.T, dir string) (swaps *atomic.Int64, stop func()) {
	t.Helper()
	in, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.InotifyAddWatch(in, dir, unix.IN_CREATE); err != nil {
		t.Fatal(err)
	}
	swaps = new(atomic.Int64)
	var stopping atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer unix.Close(in)
		buf := make([]byte, 64<<10)
		for !stopping.Load() {
			n, err := unix.Read(in, buf)
			if err != nil || n <= 0 {
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
				off += unix.SizeofInotifyEvent + int(ev.Len)
				if !strings.HasPrefix(name, ".sandbox-write-") {
					continue
				}
				evil := filepath.Join(dir, "evil.tmp")
				os.WriteFile(evil, []byte("agent's content\n"), 0o644)
				if os.Rename(evil, filepath.Join(dir, name)) == nil {
					swaps.Add(1)
				}
			}
		}
	}()
	return swaps, func() {
		stopping.Store(true)
		os.WriteFile(filepath.Join(dir, "wake"), nil, 0o644) // an event ends the blocked read
		<-done
		os.Remove(filepath.Join(dir, "wake"))
	}
}

// TestApplyWriteCannotBeSwapped: with a staging directory the agent
// cannot write, no temporary file ever appears in the target's directory,
// so a process renaming its own file over the temporary name gets nowhere;
// every write that reports success left exactly the approved bytes, with
// the hash the result records.
func TestApplyWriteCannotBeSwapped(t *testing.T) {
	root := t.TempDir()
	stage := filepath.Join(root, ".sandbox", "staging")
	if err := os.MkdirAll(stage, 0o700); err != nil {
		t.Fatal(err)
	}
	swaps, stop := swapper(t, root)
	defer stop()
	approved := []byte("export SAFE=1\n")
	for i := range 200 {
		out, err := broker.ApplyWrite(root, ".envrc", approved, broker.StageIn(stage))
		got, rerr := os.ReadFile(filepath.Join(root, ".envrc"))
		switch {
		case err != nil && !errors.Is(err, broker.ErrSwapped):
			t.Fatalf("write %d: %v", i, err)
		case err == nil && (rerr != nil || !bytes.Equal(got, approved) || out.SHA256 != sha(got)):
			t.Fatalf("write %d reported success, but the file holds %q (hash %s, recorded %s)", i, got, sha(got), out.SHA256)
		}
	}
	if n := swaps.Load(); n != 0 {
		t.Errorf("%d temporary files appeared in the target's directory", n)
	}
	noTemps(t, root)
}

// TestApplyWriteDetectsSwap: staged beside the target (no staging
// directory on its file system), a swap of the temporary file is caught
// by the check after the rename and fails the write; a success always
// left the approved bytes.
func TestApplyWriteDetectsSwap(t *testing.T) {
	root := t.TempDir()
	swaps, stop := swapper(t, root)
	defer stop()
	approved := []byte("export SAFE=1\n")
	failed := 0
	for i := range 200 {
		out, err := broker.ApplyWrite(root, ".envrc", approved)
		got, _ := os.ReadFile(filepath.Join(root, ".envrc"))
		switch {
		case errors.Is(err, broker.ErrSwapped):
			failed++
		case err != nil:
			if strings.Contains(err.Error(), "no such file") { // the swap raced the rename
				failed++
				continue
			}
			t.Fatalf("write %d: %v", i, err)
		case !bytes.Equal(got, approved) || out.SHA256 != sha(got):
			t.Fatalf("write %d reported success, but the file holds %q (recorded hash %s)", i, got, out.SHA256)
		}
	}
	t.Logf("%d swaps, %d writes refused", swaps.Load(), failed)
}
