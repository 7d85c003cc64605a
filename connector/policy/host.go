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
