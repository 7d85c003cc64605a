package launcher

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Target is a proxied destination after normalisation. Host is what the
// decider sees and exactly what the proxy dials: a lower-case ASCII name
// without a trailing dot, or the canonical text of an IP literal (IPv6
// without brackets, IPv4-mapped addresses unmapped).
type Target struct {
	Host string
	Port int
	IP   netip.Addr // valid when Host is an IP literal
}

// Addr is host:port for dialling.
func (t Target) Addr() string { return net.JoinHostPort(t.Host, strconv.Itoa(t.Port)) }

// ParseTarget normalises a CONNECT authority or a Host header. Names must
// be ASCII (IDNA names arrive in their xn-- form; anything else is
// refused, not guessed); a host that looks numeric must be a plain dotted
// quad (inet_aton's octal, hex and short forms are refused, so that a name
// rule can never be matched by 0x7f.1 in disguise); IPv6 zones are refused.
func ParseTarget(hostport string, defaultPort int) (Target, error) {
	host, port, err := splitPort(hostport, defaultPort)
	if err != nil {
		return Target{}, err
	}
	t := Target{Port: port}
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	switch {
	case h == "":
		return Target{}, fmt.Errorf("%w: empty host", ErrBadTarget)
	case strings.Contains(h, ":"), looksNumeric(h):
		ip, err := netip.ParseAddr(h)
		if err != nil || ip.Zone() != "" {
			return Target{}, fmt.Errorf("%w: bad IP literal %q", ErrBadTarget, host)
		}
		t.IP = ip.Unmap()
		// 0.0.0.0 and :: connect to this machine's own services, and a
		// human asked to approve "0.0.0.0:8080" would not know it; the
		// rest of 0.0.0.0/8 is no destination at all. Name 127.0.0.1.
		if t.IP.IsUnspecified() || t.IP.Is4() && t.IP.As4()[0] == 0 {
			return Target{}, fmt.Errorf("%w: %s is this machine (write 127.0.0.1 if you mean it)", ErrBadTarget, host)
		}
		t.Host = t.IP.String()
	default:
		if err := checkName(h); err != nil {
			return Target{}, err
		}
		t.Host = h
	}
	return t, nil
}

func splitPort(hostport string, defaultPort int) (string, int, error) {
	host, ps, err := net.SplitHostPort(hostport)
	if err != nil {
		if strings.Count(hostport, ":") > 1 && !strings.HasPrefix(hostport, "[") {
			return "", 0, fmt.Errorf("%w: unbracketed IPv6 %q", ErrBadTarget, hostport)
		}
		host, ps = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), ""
	}
	port := defaultPort
	if ps != "" {
		port, err = strconv.Atoi(ps)
		if err != nil || ps[0] == '+' {
			return "", 0, fmt.Errorf("%w: bad port %q", ErrBadTarget, ps)
		}
	}
	if port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("%w: bad port %d", ErrBadTarget, port)
	}
	return host, port, nil
}

// looksNumeric: a host whose last label is all digits (or 0x...) is an
// IPv4 address to every resolver, whatever else it says.
func looksNumeric(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if strings.HasPrefix(last, "0x") {
		return true
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}

// checkName accepts dot-separated labels of 1-63 letters, digits, '-' and
// '_', 253 bytes in all.
func checkName(h string) error {
	if len(h) > 253 {
		return fmt.Errorf("%w: host name too long", ErrBadTarget)
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return fmt.Errorf("%w: bad label in %q", ErrBadTarget, h)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Errorf("%w: bad character %q in %q (non-ASCII names must use their xn-- form)",
					ErrBadTarget, c, h)
			}
		}
	}
	return nil
}

// metadata are cloud instance-metadata addresses outside the link-local
// range (AWS IPv6, Alibaba).
var metadata = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("100.100.100.200"),
}

// IsSpecial reports loopback, link-local (169.254.169.254 included),
// unspecified, multicast and cloud-metadata addresses: a name never
// reaches them through the proxy, only an IP literal the decider allowed.
func IsSpecial(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() {
		return true
	}
	for _, m := range metadata {
		if ip == m {
			return true
		}
	}
	return false
}
