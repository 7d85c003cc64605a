//go:build linux

package shims

import (
	"os"
	"strconv"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
	"golang.org/x/sys/unix"
)

func TestStdinFromATerminalIsNotRead(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		testenv.Skip(t, "no pty: "+err.Error())
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	ptmx.WriteString("typed by the human\n")
	data, note := captureStdin(tty)
	if data != nil || note != "standard input is a terminal, so the approved command will run without it" {
		t.Errorf("captureStdin(tty) = %q, %q", data, note)
	}
}
