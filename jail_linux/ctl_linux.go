//go:build linux

package jail_linux

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/sandbox-dev/sandbox/jail_linux/internal/jailinit"
	"golang.org/x/sys/unix"
)

// setupTimeout bounds every wait of the supervisor on the init.
const setupTimeout = 30 * time.Second

// socketpair returns the supervisor's end as a connection and the init's
// end as a file to pass in ExtraFiles.
func socketpair() (sup *net.UnixConn, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	f := os.NewFile(uintptr(fds[0]), "jail-ctl")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	return c.(*net.UnixConn), os.NewFile(uintptr(fds[1]), "jail-ctl-init"), nil
}

// supCtl is the supervisor's end.
type supCtl struct{ c *net.UnixConn }

func (s supCtl) send(typ byte, payload []byte) error {
	_ = s.c.SetWriteDeadline(time.Now().Add(setupTimeout))
	_, err := s.c.Write(append([]byte{typ}, payload...))
	return err
}

func (s supCtl) sendJSON(typ byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.send(typ, b)
}

// sendJSONFiles sends v with files' descriptors (SCM_RIGHTS).
func (s supCtl) sendJSONFiles(typ byte, v any, files []*os.File) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	_ = s.c.SetWriteDeadline(time.Now().Add(setupTimeout))
	_, _, err = s.c.WriteMsgUnix(append([]byte{typ}, b...), unix.UnixRights(fds...), nil)
	return err
}

// recv reads one message and any file descriptor passed with it.
func (s supCtl) recv(timeout time.Duration) (typ byte, payload []byte, fd int, err error) {
	if timeout >= 0 { // below 0: the deadline set before
		_ = s.c.SetReadDeadline(time.Now().Add(timeout))
	}
	buf, oob := make([]byte, jailinit.MaxInitMsg), make([]byte, unix.CmsgSpace(4))
	n, oobn, flags, _, err := s.c.ReadMsgUnix(buf, oob)
	if err != nil {
		return 0, nil, -1, err
	}
	fd = passedFD(oob[:oobn])
	switch {
	case n == 0:
		err = errors.New("jail init closed the control socket")
	case flags&unix.MSG_TRUNC != 0:
		err = fmt.Errorf("bug: control message of more than %d bytes", jailinit.MaxInitMsg)
	}
	if err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		return 0, nil, -1, err
	}
	return buf[0], buf[1:n], fd, nil
}

func passedFD(oob []byte) int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil || len(msgs) == 0 {
		return -1
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) == 0 {
		return -1
	}
	for _, extra := range fds[1:] {
		unix.Close(extra)
	}
	return fds[0]
}
