//go:build unix

package agents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/sandbox-dev/sandbox/launcher"
)

// The interactive agent's terminal: the supervisor owns the pseudo-
// terminal, keeps its transcript in the log, and serves attach.sock,
// through which `sandbox agents attach` connects a human's terminal.
// Several may attach at once; what any of them types goes to the agent.

// Frames from an attached client: a type byte, a big-endian uint16
// length, the payload. The agent's output goes back as plain bytes.
const (
	frameInput  = 'i' // keys typed
	frameResize = 'w' // rows, cols: two big-endian uint16
)

// replaySize is how much of the recent output a new client gets first,
// so that it sees where the agent is (a full-screen agent redraws on the
// resize that follows).
const replaySize = 16 << 10

// clientQueue bounds the output chunks queued for one client; a client
// that falls that far behind is disconnected rather than slowing the
// agent or the others.
const clientQueue = 256

// defaultSize is the terminal's size until someone attaches.
var defaultSize = pty.Winsize{Rows: 40, Cols: 120}

func (s *supervisor) interactive(ctx context.Context, rec Record) (launcher.Result, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return launcher.Result{}, fmt.Errorf("pseudo-terminal: %w", err)
	}
	defer ptmx.Close()
	_ = pty.Setsize(ptmx, &defaultSize)
	h := &hub{ptmx: ptmx, clients: map[*client]bool{}}
	ln, err := listenUnix(s.r.SockPath(s.name))
	if err != nil {
		tty.Close()
		return launcher.Result{}, err
	}
	defer os.Remove(s.r.SockPath(s.name))
	defer ln.Close()
	go h.serve(ln)
	pumped := make(chan struct{})
	go func() {
		defer close(pumped)
		h.pump(s.log)
	}()
	res, err := s.jailRun(ctx, rec, rec.Argv, profile(rec.Agent), stdio{in: tty, out: tty}, s.running)
	tty.Close() // the jail's copies are gone with it: the pump reads EOF (EIO)
	select {
	case <-pumped:
	case <-time.After(2 * time.Second):
	}
	h.closeAll()
	return res, err
}

type hub struct {
	ptmx *os.File

	mu      sync.Mutex // guards the fields below
	clients map[*client]bool
	recent  []byte // the last replaySize bytes of output
}

type client struct {
	c   net.Conn
	out chan []byte
}

// pump copies the terminal's output to the log and every client.
func (h *hub) pump(log io.Writer) {
	buf := make([]byte, 32<<10)
	for {
		n, err := h.ptmx.Read(buf)
		if n > 0 {
			b := append([]byte(nil), buf[:n]...)
			log.Write(b)
			h.broadcast(b)
		}
		if err != nil {
			return
		}
	}
}

func (h *hub) broadcast(b []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recent = append(h.recent, b...)
	if len(h.recent) > replaySize {
		h.recent = append([]byte(nil), h.recent[len(h.recent)-replaySize:]...)
	}
	for c := range h.clients {
		select {
		case c.out <- b:
		default:
			h.drop(c)
		}
	}
}

// drop disconnects c; h.mu is held.
func (h *hub) drop(c *client) {
	if h.clients[c] {
		delete(h.clients, c)
		close(c.out)
		c.c.Close()
	}
}

func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		h.drop(c)
	}
}

func (h *hub) serve(ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		c := &client{c: conn, out: make(chan []byte, clientQueue)}
		h.mu.Lock()
		if len(h.recent) > 0 {
			c.out <- append([]byte(nil), h.recent...)
		}
		h.clients[c] = true
		h.mu.Unlock()
		go c.write()
		go h.read(c)
	}
}

func (c *client) write() {
	for b := range c.out {
		if _, err := c.c.Write(b); err != nil {
			c.c.Close()
			for range c.out { // until the hub drops us
			}
			return
		}
	}
}

// read applies one client's frames until it goes away.
func (h *hub) read(c *client) {
	defer func() {
		h.mu.Lock()
		h.drop(c)
		h.mu.Unlock()
	}()
	for {
		typ, payload, err := readFrame(c.c)
		if err != nil {
			return
		}
		switch typ {
		case frameInput:
			if _, err := h.ptmx.Write(payload); err != nil {
				return
			}
		case frameResize:
			if len(payload) == 4 {
				h.resize(uint16(payload[0])<<8|uint16(payload[1]), uint16(payload[2])<<8|uint16(payload[3]))
			}
		}
	}
}

// resize sets the terminal's size and tells the agent: the jail's
// processes have no controlling terminal of ours, so the kernel's
// SIGWINCH does not reach them; the supervisor forwards its own
// (launcher.Options.ForwardSignals).
func (h *hub) resize(rows, cols uint16) {
	if rows == 0 || cols == 0 {
		return
	}
	_ = pty.Setsize(h.ptmx, &pty.Winsize{Rows: rows, Cols: cols})
	_ = syscall.Kill(os.Getpid(), syscall.SIGWINCH)
}

// readFrame reads one client frame.
func readFrame(r io.Reader) (byte, []byte, error) {
	var head [3]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return 0, nil, err
	}
	n := int(head[1])<<8 | int(head[2])
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, err
	}
	return head[0], payload, nil
}

// writeFrame writes one client frame; payloads longer than a frame holds
// are split.
func writeFrame(w io.Writer, typ byte, payload []byte) error {
	for {
		n := min(len(payload), 0xffff)
		if _, err := w.Write(append([]byte{typ, byte(n >> 8), byte(n)}, payload[:n]...)); err != nil {
			return err
		}
		payload = payload[n:]
		if len(payload) == 0 {
			return nil
		}
	}
}

// listenUnix serves path (a stale socket replaced). A path longer
// than a socket address holds is reached through /proc/self/fd (Linux).
func listenUnix(path string) (net.Listener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	addr, done, err := sockAddr(path)
	if err != nil {
		return nil, err
	}
	defer done()
	ln, err := net.Listen("unix", addr) // in the agent's dir, 0700
	if err != nil {
		return nil, fmt.Errorf("attach socket: %w", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return ln, nil
}

// dialUnix connects to the socket at path.
func dialUnix(path string) (net.Conn, error) {
	addr, done, err := sockAddr(path)
	if err != nil {
		return nil, err
	}
	defer done()
	return net.Dial("unix", addr)
}

// sockAddr is path, or when it is too long for a socket address, the
// same file named through an open descriptor of its directory.
func sockAddr(path string) (string, func(), error) {
	const maxAddr = 100 // sun_path is 108 bytes on Linux, 104 on the BSDs
	if len(path) < maxAddr {
		return path, func() {}, nil
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("/proc/self/fd/%d/%s", dir.Fd(), filepath.Base(path)), func() { dir.Close() }, nil
}
