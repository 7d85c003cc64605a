package launcher

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in       string
		host     string
		port     int
		wantErr  bool
		isIPAddr bool
	}{
		{"Example.COM:443", "example.com", 443, false, false},
		{"example.com.:8443", "example.com", 8443, false, false},
		{"example.com", "example.com", 80, false, false},
		{"xn--bcher-kva.example", "xn--bcher-kva.example", 80, false, false},
		{"bücher.example", "", 0, true, false},
		{"127.0.0.1:22", "127.0.0.1", 22, false, true},
		{"[::1]:443", "::1", 443, false, true},
		{"[::ffff:169.254.169.254]:80", "169.254.169.254", 80, false, true},
		{"[fe80::1%eth0]:80", "", 0, true, false},
		{"0x7f.0.0.1:80", "", 0, true, false},
		{"2130706433:80", "", 0, true, false},
		{"0177.0.0.1:80", "", 0, true, false},
		{"127.1:80", "", 0, true, false},
		{"example.com:0", "", 0, true, false},
		{"example.com:65536", "", 0, true, false},
		{"example.com:+80", "", 0, true, false},
		{"example.com:http", "", 0, true, false},
		{"exa mple.com:80", "", 0, true, false},
		{"a..b:80", "", 0, true, false},
		{":80", "", 0, true, false},
		{"::1:80", "", 0, true, false},
		{"evil.com\r\nX: y:80", "", 0, true, false},
		{"0.0.0.0:8080", "", 0, true, false},
		{"[::]:8080", "", 0, true, false},
		{"[::ffff:0.0.0.0]:8080", "", 0, true, false},
		{"0.1.2.3:80", "", 0, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseTarget(tc.in, 80)
			if tc.wantErr {
				if !errors.Is(err, ErrBadTarget) {
					t.Fatalf("got %+v, %v; want ErrBadTarget", got, err)
				}
				return
			}
			if err != nil || got.Host != tc.host || got.Port != tc.port || got.IP.IsValid() != tc.isIPAddr {
				t.Fatalf("got %+v, %v", got, err)
			}
		})
	}
}

func TestIsSpecial(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "::1", "169.254.169.254", "fe80::1", "0.0.0.0", "::",
		"224.0.0.1", "fd00:ec2::254", "100.100.100.200", "::ffff:127.0.0.1"} {
		if !IsSpecial(netip.MustParseAddr(s)) {
			t.Errorf("%s is not special", s)
		}
	}
	for _, s := range []string{"1.1.1.1", "10.0.0.1", "2606:4700::1111"} {
		if IsSpecial(netip.MustParseAddr(s)) {
			t.Errorf("%s is special", s)
		}
	}
}

// FuzzParseTarget: whatever comes in, a target that parses is stable
// (parsing its own output gives itself) and never carries bytes a name
// rule could be confused by.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"example.com:443", "[::1]:80", "0x7f.1:80", "EXAMPLE.com.", "a_b-c.d:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		tg, err := ParseTarget(in, 443)
		if err != nil {
			return
		}
		again, err := ParseTarget(tg.Addr(), 1)
		if err != nil || again != tg {
			t.Fatalf("%q -> %+v -> %+v, %v", in, tg, again, err)
		}
		for i := 0; i < len(tg.Host); i++ {
			if c := tg.Host[i]; c <= ' ' || c >= 0x7f || c >= 'A' && c <= 'Z' {
				t.Fatalf("%q -> host %q", in, tg.Host)
			}
		}
	})
}

func TestAllowList(t *testing.T) {
	a, err := NewAllowList("api.example.com", "pkg.example.com:443", "127.0.0.1:8080", "[::1]")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host string
		port int
		want bool
	}{
		{"api.example.com", 443, true},
		{"api.example.com", 22, true},
		{"pkg.example.com", 443, true},
		{"pkg.example.com", 80, false},
		{"example.com", 443, false},
		{"evil-api.example.com", 443, false},
		{"127.0.0.1", 8080, true},
		{"127.0.0.1", 8081, false},
		{"localhost", 8080, false},
		{"::1", 9, true},
		{"API.example.com", 443, false}, // not normalised: the proxy always normalises first
	}
	for _, tc := range tests {
		if got, reason := a.Decide(context.Background(), tc.host, tc.port); got != tc.want {
			t.Errorf("%s:%d = %v (%s)", tc.host, tc.port, got, reason)
		}
	}
	if _, err := NewAllowList("bücher.example"); err == nil {
		t.Error("non-ASCII entry accepted")
	}
}
