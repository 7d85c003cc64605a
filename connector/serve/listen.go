package serve

import (
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Limits bound what one connection may hold. An unauthenticated client
// can open connections before any check runs, so nothing may wait on it
// without a deadline: headers within ReadHeader, the whole request within
// Read, an idle keep-alive connection is closed after Idle, and at most
// MaxConns connections are open at once (the next wait in the kernel's
// backlog until one closes). A browser opens about 6 connections to a
// host, the page one WebSocket; 128 leaves room for several pages and
// tools. Approvals answer when their command ends (up to the broker's 10
// minutes), so there is no write timeout; WebSockets are pinged instead.
type Limits struct {
	ReadHeader time.Duration
	Read       time.Duration
	Idle       time.Duration
	MaxConns   int
}

// DefaultLimits are those of `sandbox serve`.
var DefaultLimits = Limits{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Idle: 2 * time.Minute, MaxConns: 128}

// HTTPServer is an http.Server for s's handler with lim's timeouts (the
// zero Limits: DefaultLimits). Serve it on LimitListener(ln, lim.MaxConns).
func (s *Server) HTTPServer(tlsCfg *tls.Config, lim Limits) *http.Server {
	if lim == (Limits{}) {
		lim = DefaultLimits
	}
	return &http.Server{
		Handler: s.Handler(), TLSConfig: tlsCfg,
		ReadHeaderTimeout: lim.ReadHeader, ReadTimeout: lim.Read, IdleTimeout: lim.Idle,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// LimitListener accepts at most n connections open at once: Accept waits
// until one of them is closed.
func LimitListener(ln net.Listener, n int) net.Listener {
	if n <= 0 {
		n = DefaultLimits.MaxConns
	}
	return &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
