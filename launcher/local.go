package launcher

import (
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// OnThisMachine reports a destination that is a service of this machine
// rather than of the network: a loopback address (127.0.0.0/8, ::1), a
// name that means loopback (localhost, *.localhost, ip6-localhost, ...),
// the unspecified address, or one of this machine's own interface
// addresses (a database listening on every address is reached through the
// machine's LAN address as well as through 127.0.0.1). The jail reaches
// such a destination only through a rule that names it.
func OnThisMachine(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if isLoopbackName(host) {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsUnspecified() || isOwnAddress(ip)
}

// isLoopbackName reports the names every resolver maps to the loopback
// address (RFC 6761's localhost and below, and /etc/hosts' usual aliases).
func isLoopbackName(name string) bool {
	return name == "localhost" || strings.HasSuffix(name, ".localhost") ||
		name == "localhost.localdomain" || name == "ip6-localhost" || name == "ip6-loopback"
}

// isOwnAddress reports an address of one of this machine's interfaces
// (as the supervisor, in the host's network namespace, sees them). An
// error listing them counts as "yes" for the addresses it cannot rule
// out: failing closed means asking for a rule.
func isOwnAddress(ip netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if own, ok := netip.AddrFromSlice(n.IP); ok && own.Unmap() == ip {
				return true
			}
		}
	}
	return false
}

// loopbackPort parses a network rule's pattern and returns its port when
// it names a host loopback service with an explicit port: "127.0.0.1:P",
// "[::1]:P", "localhost:P". Other loopback addresses (127.0.0.2) are not
// forwarded: the jail's listeners are 127.0.0.1 and ::1.
func loopbackPort(pattern string) (int, bool) {
	host, ps, err := net.SplitHostPort(pattern)
	if err != nil {
		return 0, false
	}
	port, err := strconv.Atoi(ps)
	if err != nil || port < 1 || port > 65535 {
		return 0, false
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" {
		return port, true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return 0, false
	}
	ip = ip.Unmap()
	return port, ip == loopback4 || ip == netip.IPv6Loopback()
}

var loopback4 = netip.AddrFrom4([4]byte{127, 0, 0, 1})
