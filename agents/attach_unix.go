//go:build unix

package agents

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
)

// Attach connects the terminal in/out to agent name's pseudo-terminal
// until the human detaches (nil) or the agent's terminal goes away
// (ErrEnded).
func (r *Registry) Attach(ctx context.Context, name string, in *os.File, out io.Writer) error {
	rec, err := r.Get(name)
	if err != nil {
		return err
	}
	if rec.Headless {
		return fmt.Errorf("%s runs headless, without a terminal: `sandbox agents logs %s`", name, name)
	}
	if rec.State.Final() {
		return fmt.Errorf("%s is %s: `sandbox agents resume %s`", name, rec.State, name)
	}
	conn, err := dialUnix(r.SockPath(name))
	if err != nil {
		return fmt.Errorf("%s: its terminal is not served (%v); is it still starting?", name, err)
	}
	defer conn.Close()
	if restore, err := rawMode(int(in.Fd())); err == nil {
		defer restore()
	}
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	sendSize(conn, in)
	ended := make(chan struct{})
	go func() {
		io.Copy(out, conn)
		close(ended)
	}()
	keys := make(chan error, 1)
	go func() { keys <- copyKeys(conn, in) }()
	for {
		select {
		case <-winch:
			sendSize(conn, in)
		case err := <-keys:
			return err
		case <-ended:
			return ErrEnded
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// copyKeys sends what the human types, watching for DetachKey d.
func copyKeys(conn net.Conn, in io.Reader) error {
	buf := make([]byte, 4096)
	escaped := false
	for {
		n, err := in.Read(buf)
		if err != nil {
			return ErrEnded
		}
		var send []byte
		for _, b := range buf[:n] {
			switch {
			case escaped && b == 'd':
				return nil
			case escaped:
				escaped = false
				if b != DetachKey {
					send = append(send, DetachKey)
				}
				send = append(send, b)
			case b == DetachKey:
				escaped = true
			default:
				send = append(send, b)
			}
		}
		if len(send) > 0 {
			if err := writeFrame(conn, frameInput, send); err != nil {
				return ErrEnded
			}
		}
	}
}

func sendSize(conn net.Conn, tty *os.File) {
	rows, cols := termSize(int(tty.Fd()))
	if rows > 0 && cols > 0 {
		writeFrame(conn, frameResize, []byte{byte(rows >> 8), byte(rows), byte(cols >> 8), byte(cols)})
	}
}
