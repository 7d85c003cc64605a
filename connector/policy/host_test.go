package policy

import "testing"

func TestParseDest(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{"api.anthropic.com:443", "api.anthropic.com:443", false},
		{"API.Anthropic.COM.:443", "api.anthropic.com:443", false},
		{"example.com", "example.com", false},
		{"[::1]:8080", "[::1]:8080", false},
		{"::1", "[::1]", false},
		{"[fe80::1%eth0]:22", "[fe80::1]:22", false},
		{"[::ffff:169.254.169.254]:80", "169.254.169.254:80", false},
		{"2852039166:80", "169.254.169.254:80", false},
		{"0xa9.0xfe.0xa9.0xfe", "169.254.169.254", false},
		{"0251.0376.0251.0376", "169.254.169.254", false},
		{"169.254.43518", "169.254.169.254", false},
		{"127.1", "127.0.0.1", false},
		{"1.2.3.4.5", "", true},
		{"example.123", "", true},
		{"exa mple.com", "", true},
		{"a..b", "", true},
		{"bücher.de", "", true},
		{"host:0", "", true},
		{"host:99999", "", true},
		{"host:", "", true},
		{"", "", true},
		{"[::1", "", true},
		{"09.1.1.1", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			d, err := parseDest(tc.in)
			if tc.err {
				if err == nil {
					t.Errorf("parseDest(%q) = %v, want an error", tc.in, d)
				}
				return
			}
			if err != nil || d.String() != tc.want {
				t.Errorf("parseDest(%q) = %q, %v; want %q", tc.in, d.String(), err, tc.want)
			}
		})
	}
}

func TestHostPattern(t *testing.T) {
	tests := []struct {
		pat, dest string
		may, want bool
	}{
		{"api.anthropic.com", "api.anthropic.com:443", false, true},
		{"api.anthropic.com:443", "api.anthropic.com:443", false, true},
		{"api.anthropic.com:443", "api.anthropic.com:80", false, false},
		{"api.anthropic.com:443", "api.anthropic.com", false, false},
		{"api.anthropic.com:443", "api.anthropic.com", true, true},
		{"*.example.com", "a.example.com", false, true},
		{"*.example.com", "a.b.example.com", false, true},
		{"*.example.com", "example.com", false, false},
		{"*.example.com", "evilexample.com", false, false},
		{"*", "anything.org", false, true},
		{"*", "localhost", false, false},
		{"*", "x.localhost", false, false},
		{"*", "10.0.0.1", false, false},
		{"*", "[::1]", false, false},
		{"localhost", "localhost:3000", false, true},
		{"10.0.0.0/8", "10.1.2.3:22", false, true},
		{"10.0.0.0/8", "11.1.2.3", false, false},
		{"10.0.0.0/8", "ten.example", false, false},
		{"127.0.0.1", "127.1", false, true},
		{"::1", "[::1]:80", false, true},
		{"*:443", "x.org:443", false, true},
		{"*:443", "x.org:80", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.pat+"~"+tc.dest, func(t *testing.T) {
			p, err := compileHost(tc.pat)
			if err != nil {
				t.Fatal(err)
			}
			d, err := parseDest(tc.dest)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.match(d, tc.may); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "a b", "*.", "*.a..b", "x:0", "10.0.0.0/33", "bücher.de", "*x.com"} {
		if _, err := compileHost(bad); err == nil {
			t.Errorf("compileHost(%q) accepted", bad)
		}
	}
}
