//go:build linux

package hookd

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// peer starts bash (under wrap, if any) connected to a test listener as
// descriptor ClientFD with its output going to stdout, and returns the
// server's end of the connection and the pid bash says it has.
func peer(t *testing.T, stdout *os.File, wrap ...string) (*net.TCPConn, int) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	script := "exec " + strconv.Itoa(ClientFD) + "<>/dev/tcp/127.0.0.1/" + port + "; echo $BASHPID >&9; read -r x <&9"
	argv := append(wrap, "bash", "-c", script)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = stdout, stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", argv[0], err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	return c.(*net.TCPConn), pid
}

func pipe(t *testing.T) (r, w *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func TestOpenPeerSharesTheShellsPipe(t *testing.T) {
	r, w := pipe(t)
	c, pid := peer(t, w)
	out, errf, err := OpenPeer(c, pid)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	defer errf.Close()
	io.WriteString(out, "through-the-shells-pipe\n")
	got, _ := bufio.NewReader(r).ReadString('\n')
	if got != "through-the-shells-pipe\n" {
		t.Errorf("read %q from the shell's pipe", got)
	}
}

// A request that names another process than the one holding the
// connection (any of this user's processes) is refused: the server
// would write into that process's output and run a command as it.
func TestOpenPeerRefusesAnotherProcess(t *testing.T) {
	_, w := pipe(t)
	c, pid := peer(t, w)
	_, w2 := pipe(t)
	_, other := peer(t, w2)
	for _, claim := range []int{other, os.Getpid(), os.Getppid(), 1, pid + 100000} {
		if _, _, err := OpenPeer(c, claim); !errors.Is(err, ErrPeer) {
			t.Errorf("claiming pid %d (the sender is %d): %v, want ErrPeer", claim, pid, err)
		}
	}
}

// A jailed process (no_new_privs) must not get a command run in the
// project jail, which may be wider than its own.
func TestOpenPeerRefusesARestrictedProcess(t *testing.T) {
	if _, err := exec.LookPath("setpriv"); err != nil {
		testenv.Skip(t, "setpriv (util-linux) is not installed")
	}
	_, w := pipe(t)
	c, pid := peer(t, w, "setpriv", "--no-new-privs")
	if _, _, err := OpenPeer(c, pid); !errors.Is(err, ErrPeer) {
		t.Errorf("a no_new_privs sender: %v, want ErrPeer", err)
	}
}

// A regular file the shell does not append to would get a second offset
// that overwrites what the shell writes next: the shell jails the command
// itself instead. One it appends to (Claude Code's output files) is shared.
func TestOpenPeerFiles(t *testing.T) {
	dir := t.TempDir()
	plain, err := os.Create(filepath.Join(dir, "plain"))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	c, pid := peer(t, plain)
	if _, _, err := OpenPeer(c, pid); !errors.Is(err, ErrFallback) {
		t.Errorf("a file not opened for appending: %v, want ErrFallback", err)
	}
	app, err := os.OpenFile(filepath.Join(dir, "append"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	c, pid = peer(t, app)
	out, errf, err := OpenPeer(c, pid)
	if err != nil {
		t.Fatalf("a file opened for appending: %v", err)
	}
	io.WriteString(out, "one\n")
	io.WriteString(errf, "two\n")
	out.Close()
	errf.Close()
	if b, _ := os.ReadFile(app.Name()); string(b) != "one\ntwo\n" {
		t.Errorf("the file holds %q", b)
	}
}
