package fakemodel

import (
	"fmt"
	"net"
	"net/http"
	"sync"
)

// Trap is a loopback HTTP proxy that refuses everything and records each
// attempt: point HTTPS_PROXY/HTTP_PROXY at it, and any egress the client
// tries shows up in Hits instead of leaving the machine.
type Trap struct {
	// URL is the proxy URL (http://127.0.0.1:PORT).
	URL string
	srv *http.Server
	mu  sync.Mutex
	// hits lists "METHOD host" for every attempt.
	hits []string
}

// StartTrap listens on a free loopback port.
func StartTrap() (*Trap, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("egress trap: %w", err)
	}
	t := &Trap{URL: "http://" + ln.Addr().String()}
	t.srv = &http.Server{Handler: http.HandlerFunc(t.serve)}
	go t.srv.Serve(ln)
	return t, nil
}

func (t *Trap) serve(w http.ResponseWriter, r *http.Request) {
	t.mu.Lock()
	t.hits = append(t.hits, r.Method+" "+r.Host)
	t.mu.Unlock()
	http.Error(w, "egress refused by the test's trap", http.StatusForbidden)
}

// Hits returns every egress attempt so far.
func (t *Trap) Hits() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.hits...)
}

// Close stops the trap.
func (t *Trap) Close() error { return t.srv.Close() }
