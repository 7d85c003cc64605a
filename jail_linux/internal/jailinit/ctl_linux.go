//go:build linux

package jailinit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The supervisor and the init talk over a SOCK_SEQPACKET socketpair (the
// init's fd 3): one message per packet, a type byte and a payload.
const (
	MsgConfig   = 'C' // supervisor -> init: Config as JSON
	MsgListener = 'L' // init -> supervisor: the proxy listener (SCM_RIGHTS), after the forwards
	MsgForward  = 'F' // init -> supervisor: a forwarded port's listener (SCM_RIGHTS)
	MsgReady    = 'R' // init -> supervisor: the command started (ReadyMsg)
	MsgError    = 'E' // init -> supervisor: set-up failed (ErrorMsg), the init exits
	MsgExit     = 'X' // init -> supervisor: how the command ended (ExitMsg.Encode)
)

// MaxMsg bounds one control message (the config is a few KiB); the
// init's messages to the supervisor (ready, error, exit) stay under
// MaxInitMsg, so the supervisor reads them into a small buffer instead of
// allocating MaxMsg per message (1 MiB allocations pushed the
// supervisor's heap into a garbage collection at the end of each run).
const (
	MaxMsg     = 1 << 20
	MaxInitMsg = 16 << 10
)

// ReadyMsg says that the command runs.
type ReadyMsg struct {
	Pid int `json:"pid"` // the command's pid in the jail's pid namespace
}

// ErrorMsg says why the set-up failed.
type ErrorMsg struct {
	Code int    `json:"code"` // the init's exit code (125, 126, 127)
	Msg  string `json:"msg"`
}

// ExitMsg is how the command ended.
type ExitMsg struct {
	Code   int
	Signal int
	// Alone: nothing of the jail runs any more but its init, which holds
	// none of the command's streams (Emptied).
	Alone bool
}

// Encode spells the exit message as three decimal numbers, "CODE SIGNAL
// ALONE", not JSON: the supervisor decodes it at the end of every run,
// where encoding/json's first use in the process cost about 0.3 ms.
func (m ExitMsg) Encode() []byte {
	alone := 0
	if m.Alone {
		alone = 1
	}
	return fmt.Appendf(nil, "%d %d %d", m.Code, m.Signal, alone)
}

// DecodeExit reads what Encode wrote.
func DecodeExit(b []byte) (ExitMsg, bool) {
	f := strings.Split(string(b), " ")
	if len(f) != 3 || f[2] != "0" && f[2] != "1" {
		return ExitMsg{}, false
	}
	code, err1 := strconv.Atoi(f[0])
	sig, err2 := strconv.Atoi(f[1])
	return ExitMsg{Code: code, Signal: sig, Alone: f[2] == "1"}, err1 == nil && err2 == nil
}

// CapMsg keeps an error message well under the supervisor's MaxInitMsg.
func CapMsg(s string) string {
	const limit = 4 << 10
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}

// Ctl is the init's end: plain blocking syscalls on fd 3.
type Ctl struct{ FD int }

// Send sends one message, with fd (SCM_RIGHTS) unless it is negative.
func (c Ctl) Send(typ byte, payload []byte, fd int) error {
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	return unix.Sendmsg(c.FD, append([]byte{typ}, payload...), oob, nil, 0)
}

func (c Ctl) sendJSON(typ byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.Send(typ, b, -1)
}

func (c Ctl) recv() (byte, []byte, []int, error) {
	buf, oob := make([]byte, MaxMsg), make([]byte, unix.CmsgSpace(4*maxPassed))
	for {
		n, oobn, _, _, err := unix.Recvmsg(c.FD, buf, oob, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return 0, nil, nil, err
		}
		fds := passedFDs(oob[:oobn])
		if n == 0 {
			closeAll(fds)
			return 0, nil, nil, errors.New("the supervisor closed the control socket")
		}
		return buf[0], buf[1:n], fds, nil
	}
}

// maxPassed is the most descriptors a message carries (the command's
// standard streams, passed with the config to an init started ahead).
const maxPassed = 3

func passedFDs(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for i := range msgs {
		if got, err := unix.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// expect reads one message, with the descriptors passed with it, and
// checks its type.
func (c Ctl) expect(want byte) ([]byte, []int, error) {
	typ, payload, fds, err := c.recv()
	if err != nil {
		return nil, nil, err
	}
	if typ != want {
		closeAll(fds)
		return nil, nil, fmt.Errorf("bug: control message %q, want %q", typ, want)
	}
	return payload, fds, nil
}
