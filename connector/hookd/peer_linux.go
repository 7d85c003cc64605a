//go:build linux

package hookd

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// OpenPeer checks that conn is held, as descriptor ClientFD, by process
// pid, that this process is one of this user's and stands outside any
// jail (same namespaces as the server, no no_new_privs: a jailed process
// must not get a command run in a wider jail than its own), and opens
// its standard output and error anew from /proc: the same pipe or
// terminal, or the same file when the shell appends to it (Claude Code
// writes a command's output to a file opened for appending). Anything
// else is ErrFallback.
func OpenPeer(conn syscall.Conn, pid int) (stdout, stderr *os.File, err error) {
	want, err := socketLink(conn)
	if err != nil {
		return nil, nil, err
	}
	proc := "/proc/" + strconv.Itoa(pid)
	if err := holds(proc, want); err != nil {
		return nil, nil, err
	}
	if err := outsideJail(proc); err != nil {
		return nil, nil, err
	}
	// bash writes the request through a redirection of its standard
	// output to the connection, which it undoes right after: wait for
	// that, briefly, before looking at its streams
	if err := restored(proc, want); err != nil {
		return nil, nil, err
	}
	if stdout, err = reopen(proc, 1); err != nil {
		return nil, nil, err
	}
	if stderr, err = reopen(proc, 2); err != nil {
		stdout.Close()
		return nil, nil, err
	}
	// the pid could have been reused between the first check and the
	// opens only if the shell had died, closing the connection: checked
	// again, the same process still holds it
	if err := holds(proc, want); err != nil {
		stdout.Close()
		stderr.Close()
		return nil, nil, err
	}
	return stdout, stderr, nil
}

// socketLink is what /proc shows for the descriptor of the client's end
// of conn (a loopback TCP connection): the socket whose local and remote
// ends are conn's remote and local ones.
func socketLink(conn syscall.Conn) (string, error) {
	c, ok := conn.(interface {
		LocalAddr() net.Addr
		RemoteAddr() net.Addr
	})
	if !ok {
		return "", ErrPeer
	}
	local, ok1 := c.RemoteAddr().(*net.TCPAddr)
	remote, ok2 := c.LocalAddr().(*net.TCPAddr)
	if !ok1 || !ok2 || !local.IP.IsLoopback() {
		return "", ErrPeer
	}
	ino, err := tcpInode(local, remote)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrPeer, err)
	}
	return "socket:[" + strconv.FormatUint(uint64(ino), 10) + "]", nil
}

// restored waits until neither standard stream of the process is the
// connection any more (at most about a second).
func restored(proc, conn string) error {
	for range 1000 {
		one, err1 := os.Readlink(proc + "/fd/1")
		two, err2 := os.Readlink(proc + "/fd/2")
		if err1 != nil || err2 != nil {
			return ErrFallback
		}
		if one != conn && two != conn {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
	return ErrFallback
}

func holds(proc, want string) error {
	link, err := os.Readlink(proc + "/fd/" + strconv.Itoa(ClientFD))
	if err != nil || link != want {
		return ErrPeer
	}
	return nil
}

// outsideJail checks the process's user, namespaces and no_new_privs.
func outsideJail(proc string) error {
	status, err := os.ReadFile(proc + "/status")
	if err != nil {
		return ErrPeer
	}
	uid := strconv.Itoa(os.Geteuid())
	var uidOK, nnpOK bool
	for line := range bytes.SplitSeq(status, []byte("\n")) {
		name, value, _ := bytes.Cut(line, []byte(":"))
		f := bytes.Fields(value)
		switch string(name) {
		case "Uid":
			uidOK = len(f) == 4 && string(f[0]) == uid && string(f[1]) == uid && string(f[3]) == uid
		case "NoNewPrivs":
			nnpOK = len(f) == 1 && string(f[0]) == "0"
		}
	}
	if !uidOK || !nnpOK {
		return fmt.Errorf("%w (another user's, or jailed)", ErrPeer)
	}
	for _, ns := range []string{"mnt", "pid", "net", "user"} {
		theirs, err1 := os.Readlink(proc + "/ns/" + ns)
		ours, err2 := os.Readlink("/proc/self/ns/" + ns)
		if err1 != nil || err2 != nil || theirs != ours {
			return fmt.Errorf("%w (in another %s namespace)", ErrPeer, ns)
		}
	}
	return nil
}

// reopen opens the process's descriptor fd for writing, as it has it.
func reopen(proc string, fd int) (*os.File, error) {
	path := proc + "/fd/" + strconv.Itoa(fd)
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return nil, ErrFallback
	}
	flags, err := fdFlags(proc, fd)
	if err != nil || flags&unix.O_ACCMODE == unix.O_RDONLY {
		return nil, ErrFallback
	}
	open := unix.O_WRONLY | unix.O_CLOEXEC | unix.O_NOCTTY
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO:
		open |= unix.O_NONBLOCK // a pipe nobody reads any more: ENXIO, not a wait
	case unix.S_IFCHR:
		if !plainDevice(st.Rdev) {
			return nil, ErrFallback
		}
	case unix.S_IFREG:
		if flags&unix.O_APPEND == 0 {
			return nil, ErrFallback // a second offset would overwrite the shell's
		}
		open |= unix.O_APPEND
	default:
		return nil, ErrFallback
	}
	n, err := unix.Open(path, open, 0)
	if err != nil {
		return nil, ErrFallback
	}
	if open&unix.O_NONBLOCK != 0 {
		if _, err := unix.FcntlInt(uintptr(n), unix.F_SETFL, 0); err != nil {
			unix.Close(n)
			return nil, ErrFallback
		}
	}
	return os.NewFile(uintptr(n), path), nil
}

// fdFlags reads the open flags /proc shows for the descriptor.
func fdFlags(proc string, fd int) (int, error) {
	info, err := os.ReadFile(proc + "/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0, err
	}
	for line := range bytes.SplitSeq(info, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("flags:")); ok {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 8, 64)
			return int(n), err
		}
	}
	return 0, fmt.Errorf("no flags in %s/fdinfo/%d", proc, fd)
}

// plainDevice: the null, zero and full devices and terminals, which
// opening again changes nothing.
func plainDevice(rdev uint64) bool {
	major := unix.Major(rdev)
	return major == 1 || major == 4 || major == 5 || major >= 136 && major <= 143
}
