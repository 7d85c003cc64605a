package main

import (
	"testing"
)

func TestServeListensOnLoopbackUnlessAllowedRemoteWithTLS(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts serveOptions
		code int // 0: accepted
	}{
		{"default", serveOptions{addr: "127.0.0.1:0"}, 0},
		{"localhost", serveOptions{addr: "localhost:8080"}, 0},
		{"ipv6 loopback", serveOptions{addr: "[::1]:0"}, 0},
		{"every interface", serveOptions{addr: ":8080"}, exitUsage},
		{"all ipv4", serveOptions{addr: "0.0.0.0:8080"}, exitUsage},
		{"a LAN address", serveOptions{addr: "192.0.2.10:8080"}, exitUsage},
		{"a name", serveOptions{addr: "example.com:8080"}, exitUsage},
		{"remote without TLS", serveOptions{addr: "0.0.0.0:8443", allowRemote: true}, exitUsage},
		{"cert without key", serveOptions{addr: "127.0.0.1:0", tlsCert: "c.pem"}, exitUsage},
		{"remote with a missing cert", serveOptions{addr: "0.0.0.0:8443", allowRemote: true, tlsCert: "/nonexistent/c.pem", tlsKey: "/nonexistent/k.pem"}, exitFailure},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.opts.check()
			switch {
			case tc.code == 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.code != 0 && exitCode(err) != tc.code:
				t.Fatalf("err %v, want exit code %d", err, tc.code)
			}
		})
	}
}
