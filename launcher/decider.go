package launcher

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
)

// NetDecider decides one destination the jail asked the proxy for (a
// CONNECT authority or a plain-HTTP Host), called once per tunnel or
// request. host and port come normalised by ParseTarget: host is a
// lower-case ASCII name or an IP literal's canonical text, and it is
// exactly what the proxy dials when allowed. The decider owns the
// semantics: whether an IP literal may match (it must never match a name
// rule), what is special (IsSpecial), and escalation: Decide may block
// while a human decides; the proxy just waits, or gives up when ctx ends
// (the client left or the run is over). reason goes into the 403 body
// when allow is false.
type NetDecider interface {
	Decide(ctx context.Context, host string, port int) (allow bool, reason string)
}

// DeciderFunc adapts a function to NetDecider.
type DeciderFunc func(ctx context.Context, host string, port int) (bool, string)

// Decide calls f.
func (f DeciderFunc) Decide(ctx context.Context, host string, port int) (bool, string) {
	return f(ctx, host, port)
}

// denyAll is the decider of a run without one: nothing goes out.
var denyAll = DeciderFunc(func(context.Context, string, int) (bool, string) {
	return false, "no network policy is wired into this run: every destination is denied"
})

// AllowList is a fixed decider for tests and simple runs: a destination
// passes when an entry names it. An entry is "host" (any port) or
// "host:port"; a name entry matches only that name, never an IP literal,
// and an IP entry only that address, so that loopback, link-local and
// metadata addresses pass only when listed as such.
type AllowList struct {
	mu      sync.Mutex
	entries map[string]bool // guarded by mu: "host" or "host:port", normalised
}

// NewAllowList normalises the entries.
func NewAllowList(entries ...string) (*AllowList, error) {
	a := &AllowList{entries: map[string]bool{}}
	for _, e := range entries {
		if err := a.Add(e); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Add allows one more entry.
func (a *AllowList) Add(entry string) error {
	key, err := allowKey(entry)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.entries[key] = true
	return nil
}

// allowKey normalises "host", "host:port", "[v6]" or "[v6]:port".
func allowKey(entry string) (string, error) {
	host, port, err := net.SplitHostPort(entry)
	if err != nil {
		host, port = strings.TrimSuffix(strings.TrimPrefix(entry, "["), "]"), ""
	}
	t, err := ParseTarget(net.JoinHostPort(host, cmp.Or(port, "1")), 1)
	if err != nil {
		return "", fmt.Errorf("allow-list entry %q: %w", entry, err)
	}
	if port == "" {
		return t.Host, nil
	}
	return t.Addr(), nil
}

// Decide allows host:port when listed, with or without the port.
func (a *AllowList) Decide(_ context.Context, host string, port int) (bool, string) {
	t, err := ParseTarget(net.JoinHostPort(host, strconv.Itoa(port)), port)
	if err != nil || t.Host != host {
		return false, "destination does not normalise: " + host
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.entries[t.Host] || a.entries[t.Addr()] {
		return true, "on the allow list"
	}
	return false, t.Addr() + " is not on the allow list"
}

// FirstAllow lets a destination through when first allows it, and
// otherwise asks then (`sandbox run --allow-host` in front of the
// policy).
func FirstAllow(first, then NetDecider) NetDecider { return firstAllow{first, then} }

type firstAllow struct{ first, then NetDecider }

func (f firstAllow) Decide(ctx context.Context, host string, port int) (bool, string) {
	if ok, reason := f.first.Decide(ctx, host, port); ok {
		return true, reason
	}
	return f.then.Decide(ctx, host, port)
}

// ForwardPorts implements PortForwarder: both deciders' ports.
func (f firstAllow) ForwardPorts() []int {
	var ports []int
	for _, d := range []NetDecider{f.first, f.then} {
		if pf, ok := d.(PortForwarder); ok {
			ports = append(ports, pf.ForwardPorts()...)
		}
	}
	return ports
}

// ForwardPorts implements PortForwarder: the ports of the entries that
// name 127.0.0.1, ::1 or localhost with a port.
func (a *AllowList) ForwardPorts() []int {
	a.mu.Lock()
	defer a.mu.Unlock()
	var ports []int
	for e := range a.entries {
		if p, ok := loopbackPort(e); ok {
			ports = append(ports, p)
		}
	}
	return ports
}
