//go:build linux

package broker_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/broker"
	"golang.org/x/sys/unix"
)

// TestRunPassesNoInheritedDescriptor: a descriptor the approver inherited
// without close-on-exec (its parent's open file) does not reach the
// approved command, which gets its three streams only.
func TestRunPassesNoInheritedDescriptor(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("TOPSECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(secret, unix.O_RDONLY, 0) // no O_CLOEXEC: as a parent would leave it
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	n := strconv.Itoa(fd)
	oc := mustRun(t, broker.Spec{Script: "cat /proc/self/fd/" + n + " <&" + n + " 2>&1; cat <&" + n + "; ls /proc/self/fd"})
	if strings.Contains(oc.Stdout, "TOPSECRET") || strings.Contains(oc.Stderr, "TOPSECRET") {
		t.Fatalf("the command read the approver's inherited descriptor %s:\n%s%s", n, oc.Stdout, oc.Stderr)
	}
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("descriptor %s is not close-on-exec after a run (flags %d, %v)", n, flags, err)
	}
}
