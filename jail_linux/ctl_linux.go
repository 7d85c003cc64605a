//go:build linux

package jail_linux

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The supervisor and the init talk over a SOCK_SEQPACKET socketpair (the
// init's fd 3): one message per packet, a type byte and a payload.
const (
	msgConfig   = 'C' // supervisor -> init: initConfig as JSON
	msgListener = 'L' // init -> supervisor: the proxy listener (SCM_RIGHTS), after the forwards
	msgForward  = 'F' // init -> supervisor: a forwarded port's listener (SCM_RIGHTS)
	msgReady    = 'R' // init -> supervisor: the command started (readyMsg)
	msgError    = 'E' // init -> supervisor: set-up failed (errorMsg), the init exits
	msgExit     = 'X' // init -> supervisor: how the command ended (exitMsg.encode)
)

// maxMsg bounds one control message (the config is a few KiB); the
// init's messages to the supervisor (ready, error, exit) stay under
// maxInitMsg, so the supervisor reads them into a small buffer instead of
// allocating maxMsg per message (1 MiB allocations pushed the
// supervisor's heap into a garbage collection at the end of each run).
const (
	maxMsg     = 1 << 20
	maxInitMsg = 16 << 10
)

// setupTimeout bounds every wait of the supervisor on the init.
const setupTimeout = 30 * time.Second

type readyMsg struct {
	Pid int `json:"pid"` // the command's pid in the jail's pid namespace
}

type errorMsg struct {
	Code int    `json:"code"` // the init's exit code (125, 126, 127)
	Msg  string `json:"msg"`
}

type exitMsg struct {
	Code   int
	Signal int
}

// encode spells the exit message as two decimal numbers, "CODE SIGNAL",
// not JSON: the supervisor decodes it at the end of every run, where
// encoding/json's first use in the process cost about 0.3 ms.
func (m exitMsg) encode() []byte { return fmt.Appendf(nil, "%d %d", m.Code, m.Signal) }

// decodeExit reads what encode wrote.
func decodeExit(b []byte) (exitMsg, bool) {
	c, s, ok := strings.Cut(string(b), " ")
	code, err1 := strconv.Atoi(c)
	sig, err2 := strconv.Atoi(s)
	return exitMsg{Code: code, Signal: sig}, ok && err1 == nil && err2 == nil
}

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

// recv reads one message and any file descriptor passed with it.
func (s supCtl) recv(timeout time.Duration) (typ byte, payload []byte, fd int, err error) {
	_ = s.c.SetReadDeadline(time.Now().Add(timeout))
	buf, oob := make([]byte, maxInitMsg), make([]byte, unix.CmsgSpace(4))
	n, oobn, flags, _, err := s.c.ReadMsgUnix(buf, oob)
	if err != nil {
		return 0, nil, -1, err
	}
	fd = passedFD(oob[:oobn])
	switch {
	case n == 0:
		err = errors.New("jail init closed the control socket")
	case flags&unix.MSG_TRUNC != 0:
		err = fmt.Errorf("bug: control message of more than %d bytes", maxInitMsg)
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

// initCtl is the init's end: plain blocking syscalls on fd 3.
type initCtl struct{ fd int }

func (c initCtl) send(typ byte, payload []byte, fd int) error {
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	return unix.Sendmsg(c.fd, append([]byte{typ}, payload...), oob, nil, 0)
}

func (c initCtl) sendJSON(typ byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.send(typ, b, -1)
}

func (c initCtl) recv() (byte, []byte, error) {
	buf := make([]byte, maxMsg)
	for {
		n, _, _, _, err := unix.Recvmsg(c.fd, buf, nil, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return 0, nil, err
		}
		if n == 0 {
			return 0, nil, errors.New("the supervisor closed the control socket")
		}
		return buf[0], buf[1:n], nil
	}
}

// expect reads one message and checks its type.
func (c initCtl) expect(want byte) ([]byte, error) {
	typ, payload, err := c.recv()
	if err != nil {
		return nil, err
	}
	if typ != want {
		return nil, fmt.Errorf("bug: control message %q, want %q", typ, want)
	}
	return payload, nil
}
