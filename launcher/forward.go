package launcher

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"sync"
	"syscall"
)

// maxForwardPorts bounds the host loopback ports forwarded into one jail
// (each is two sockets in the jail, 127.0.0.1 and ::1); the jail refuses
// more.
const maxForwardPorts = 64

// PortForwarder is a NetDecider that also names the host's loopback
// ports the jail should find on its own loopback: the ports of the rules
// that name 127.0.0.1, ::1 or localhost with a port. Only those ports are
// forwarded, and every connection to one is still decided.
type PortForwarder interface {
	ForwardPorts() []int
}

// forwardPorts are the ports to forward into this run's jail: the
// options' own and those the deciders name, without the proxy's port,
// sorted, at most maxForwardPorts (the rest is logged and left out).
func (r *run) forwardPorts(proxyPort int) []int {
	ports := slices.Clone(r.o.Forward)
	for _, d := range []any{r.o.Decider, r.busDecider()} {
		if f, ok := d.(PortForwarder); ok {
			ports = append(ports, f.ForwardPorts()...)
		}
	}
	slices.Sort(ports)
	ports = slices.Compact(ports)
	ports = slices.DeleteFunc(ports, func(p int) bool { return p < 1 || p > 65535 || p == proxyPort })
	if len(ports) > maxForwardPorts {
		r.log.Warn("too many host loopback ports to forward; the highest are left out",
			"ports", len(ports), "max", maxForwardPorts)
		ports = ports[:maxForwardPorts]
	}
	return ports
}

func (r *run) busDecider() any {
	if r.o.bus == nil {
		return nil
	}
	return r.o.bus.decider
}

// serveForwards relays each connection accepted on the jail's forwarded
// listeners to the same loopback address and port on the host, when d
// allows that destination; a refused connection is closed unanswered
// (plain TCP has no place for a reason: the log has it).
func serveForwards(ctx context.Context, lns []net.Listener, d NetDecider, log *slog.Logger) {
	if d == nil {
		d = denyAll
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for _, ln := range lns {
		go serveForward(ctx, ln, d, log)
	}
}

func serveForward(ctx context.Context, ln net.Listener, d NetDecider, log *slog.Logger) {
	go func() { <-ctx.Done(); ln.Close() }()
	target, ok := forwardTarget(ln)
	if !ok {
		log.Warn("bug: a forwarded listener is not on a loopback address", "addr", ln.Addr())
		ln.Close()
		return
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
				log.Warn("forward accept", "addr", target, "err", err)
			}
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			relayForward(ctx, c, target, d, log)
		}()
	}
}

// forwardTarget is the host's side of a jail listener: the same loopback
// address and port.
func forwardTarget(ln net.Listener) (netip.AddrPort, bool) {
	a, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		return netip.AddrPort{}, false
	}
	ap := a.AddrPort()
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	return ap, ap.Addr().IsLoopback()
}

// relayForward decides one connection and relays it.
func relayForward(ctx context.Context, c net.Conn, target netip.AddrPort, d NetDecider, log *slog.Logger) {
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	host, port := target.Addr().String(), int(target.Port())
	allow, reason := d.Decide(ctx, host, port)
	log.Info("forward decision", "target", target, "allow", allow, "reason", reason)
	if !allow {
		return
	}
	up, err := dialForward(ctx, target, d, log)
	if err != nil {
		log.Info("forward dial failed", "target", target, "err", err)
		return
	}
	defer up.Close()
	splice(c, up)
}

// dialForward dials the host's side; when nothing listens there, the
// other loopback address at the same port, if the decider allows that
// too (a localhost:PORT rule allows both). The jail's listener has
// already accepted the connection, so a client that tries ::1 first
// (Node, for localhost) could not fall back by itself to a service the
// host runs on 127.0.0.1 only.
func dialForward(ctx context.Context, target netip.AddrPort, d NetDecider, log *slog.Logger) (net.Conn, error) {
	var dialer net.Dialer
	up, err := dialer.DialContext(ctx, "tcp", target.String())
	if err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
		return up, err
	}
	alt := loopback4
	if target.Addr().Is4() {
		alt = netip.IPv6Loopback()
	}
	if ok, reason := d.Decide(ctx, alt.String(), int(target.Port())); !ok {
		log.Info("forward fallback refused", "target", alt, "reason", reason)
		return nil, err
	}
	return dialer.DialContext(ctx, "tcp", netip.AddrPortFrom(alt, target.Port()).String())
}
