package policy

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// hostKind is the kind of a network pattern.
type hostKind uint8

const (
	hostExact  hostKind = iota // api.example.com
	hostSuffix                 // *.example.com: any name below, not the name itself
	hostAny                    // *: any DNS name (never an IP literal or localhost)
	hostIP                     // 10.1.2.3, ::1
	hostCIDR                   // 10.0.0.0/8
)

// hostPattern is a compiled network rule with an optional port.
type hostPattern struct {
	kind hostKind
	name string // hostExact: the name; hostSuffix: ".example.com"
	ip   netip.Addr
	pfx  netip.Prefix
	port int // 0: any port
}

// compileHost parses a network pattern: a host name, "*.suffix", "*",
// an IP literal or CIDR, each with an optional ":port" ("[v6]:port").
func compileHost(pat string) (*hostPattern, error) {
	if strings.Contains(pat, "://") {
		hp, err := urlHostPort(pat)
		if err != nil {
			hp = "example.com:443"
		}
		return nil, errorf("%q is a URL: a network rule names a host, so use host[:port] (%s)", pat, hp)
	}
	if strings.Contains(pat, "/") {
		pfx, err := netip.ParsePrefix(pat)
		if err != nil {
			return nil, errorf("bad CIDR %q", pat)
		}
		return &hostPattern{kind: hostCIDR, pfx: pfx.Masked()}, nil
	}
	host, port, err := splitHostPort(pat)
	if err != nil {
		return nil, errorf("%v", err)
	}
	p := &hostPattern{port: port}
	switch {
	case host == "*":
		p.kind = hostAny
	case strings.HasPrefix(host, "*."):
		// The suffix is normalised like a destination (case, one trailing
		// dot): "*.Evil.COM." must match api.evil.com, or a deny rule
		// written that way would never deny.
		suffix := strings.TrimSuffix(strings.ToLower(host[2:]), ".")
		if err := checkHostName(suffix); err != nil {
			return nil, errorf("%q: %v", pat, err)
		}
		p.kind, p.name = hostSuffix, "."+suffix
	default:
		d, err := normalizeHost(host)
		if err != nil {
			return nil, errorf("%q: %v", pat, err)
		}
		p.kind, p.name, p.ip = hostExact, d.name, d.ip
		if d.ip.IsValid() {
			p.kind = hostIP
		}
	}
	return p, nil
}

// dest is a normalised network destination.
type dest struct {
	name string     // lower-case DNS name without trailing dot ("" for an IP)
	ip   netip.Addr // valid for an IP literal
	port int        // 0 when unknown
}

func (d dest) String() string {
	h := d.name
	if d.ip.IsValid() {
		h = d.ip.String()
		if d.ip.Is6() {
			h = "[" + h + "]"
		}
	}
	if d.port == 0 {
		return h
	}
	return h + ":" + strconv.Itoa(d.port)
}

// match reports whether the pattern matches d. may is set for deny and
// escalate rules: an unknown port then matches a rule with a port.
func (p *hostPattern) match(d dest, may bool) bool {
	if p.port != 0 && p.port != d.port && !(may && d.port == 0) {
		return false
	}
	switch p.kind {
	case hostIP:
		return d.ip.IsValid() && d.ip == p.ip
	case hostCIDR:
		return d.ip.IsValid() && p.pfx.Contains(d.ip)
	case hostExact:
		return !d.ip.IsValid() && d.name == p.name
	case hostSuffix:
		return !d.ip.IsValid() && strings.HasSuffix(d.name, p.name)
	case hostAny:
		return !d.ip.IsValid() && !isLocalName(d.name)
	}
	return false
}

// parseDest parses "host", "host:port", "[v6]:port" or a bare IPv6.
func parseDest(s string) (dest, error) {
	host, port, err := splitHostPort(s)
	if err != nil {
		return dest{}, err
	}
	d, err := normalizeHost(host)
	d.port = port
	return d, err
}

func splitHostPort(s string) (host string, port int, err error) {
	if s == "" {
		return "", 0, fmt.Errorf("empty host")
	}
	host, ps := s, ""
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, fmt.Errorf("unclosed '[' in %q", s)
		}
		host, ps = s[1:end], s[end+1:]
		if ps != "" && !strings.HasPrefix(ps, ":") {
			return "", 0, fmt.Errorf("junk after ']' in %q", s)
		}
		ps = strings.TrimPrefix(ps, ":")
	case strings.Count(s, ":") == 1:
		i := strings.IndexByte(s, ':')
		host, ps = s[:i], s[i+1:]
	}
	if ps == "" && strings.HasSuffix(s, ":") {
		return "", 0, fmt.Errorf("empty port in %q", s)
	}
	if ps != "" {
		n, err := strconv.Atoi(ps)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, fmt.Errorf("bad port in %q", s)
		}
		port = n
	}
	return host, port, nil
}

// normalizeHost lower-cases a host, drops one trailing dot and brackets,
// and recognises IP literals in every form a resolver would accept
// (dotted quads, IPv6 with a zone, 4-in-6, and the legacy decimal, octal
// and hex forms such as 2852039166 or 0xa9.0xfe.0xa9.0xfe). Names must be
// ASCII: there is no IDNA mapping here, so a non-ASCII name is an error
// (it escalates); use its xn-- form in rules.
func normalizeHost(h string) (dest, error) {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" {
		return dest{}, fmt.Errorf("empty host")
	}
	if strings.Contains(h, ":") {
		if i := strings.IndexByte(h, '%'); i >= 0 {
			h = h[:i]
		}
		ip, err := netip.ParseAddr(h)
		if err != nil {
			return dest{}, fmt.Errorf("bad IPv6 address %q", h)
		}
		return dest{ip: ip.Unmap()}, nil
	}
	if !isASCII(h) {
		return dest{}, fmt.Errorf("non-ASCII host name %q (write its xn-- form)", h)
	}
	if looksNumeric(h) {
		ip, err := parseLegacyIPv4(h)
		if err != nil {
			return dest{}, err
		}
		return dest{ip: ip}, nil
	}
	if err := checkHostName(h); err != nil {
		return dest{}, err
	}
	return dest{name: h}, nil
}

// checkHostName accepts letters, digits, '-' and '_' in dot-separated
// labels of 1 to 63 characters, 253 in all.
func checkHostName(h string) error {
	if len(h) > 253 {
		return fmt.Errorf("host name too long")
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return fmt.Errorf("bad label in host %q", h)
		}
		for i := 0; i < len(label); i++ {
			c := label[i] | 0x20
			if !(c >= 'a' && c <= 'z' || label[i] >= '0' && label[i] <= '9' || label[i] == '-' || label[i] == '_') {
				return fmt.Errorf("bad character %q in host %q", label[i], h)
			}
		}
	}
	return nil
}

// looksNumeric is the URL standard's test: a host whose last label is a
// number is an IPv4 address, whatever else it says.
func looksNumeric(h string) bool {
	labels := strings.Split(h, ".")
	last := labels[len(labels)-1]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") {
		return isHex(last[2:])
	}
	return strings.Trim(last, "0123456789") == ""
}

func isHex(s string) bool { return strings.Trim(s, "0123456789abcdef") == "" }

// parseLegacyIPv4 parses inet_aton forms: 1 to 4 parts, each decimal,
// octal (leading 0) or hex (0x); the last part fills the remaining bytes.
func parseLegacyIPv4(h string) (netip.Addr, error) {
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return netip.Addr{}, fmt.Errorf("numeric host %q is not an IPv4 address", h)
	}
	var v uint64
	for i, p := range parts {
		n, err := parseInetPart(p)
		limit := uint64(255)
		if i == len(parts)-1 {
			limit = 1<<(8*(5-len(parts))) - 1
		}
		if err != nil || n > limit {
			return netip.Addr{}, fmt.Errorf("numeric host %q is not an IPv4 address", h)
		}
		if i == len(parts)-1 {
			v = v<<(8*(5-len(parts))) | n
		} else {
			v = v<<8 | n
		}
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}

func parseInetPart(p string) (uint64, error) {
	switch {
	case p == "":
		return 0, fmt.Errorf("empty part")
	case strings.HasPrefix(p, "0x"):
		if p == "0x" {
			return 0, nil
		}
		return strconv.ParseUint(p[2:], 16, 32)
	case len(p) > 1 && p[0] == '0':
		return strconv.ParseUint(p[1:], 8, 32)
	}
	return strconv.ParseUint(p, 10, 32)
}

// isLocalName reports localhost and its subdomains, which resolve to the
// loopback address and are never matched by the "*" pattern.
func isLocalName(name string) bool {
	return name == "localhost" || strings.HasSuffix(name, ".localhost") ||
		name == "localhost.localdomain" || name == "ip6-localhost" || name == "ip6-loopback"
}
