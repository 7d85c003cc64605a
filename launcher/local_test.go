package launcher

import (
	"net"
	"strings"
	"testing"
)

func TestOnThisMachine(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"127.0.0.1", true}, {"127.0.0.2", true}, {"::1", true}, {"[::1]", true},
		{"::ffff:127.0.0.1", true}, {"0.0.0.0", true}, {"::", true},
		{"localhost", true}, {"LOCALHOST.", true}, {"db.localhost", true}, {"ip6-localhost", true},
		{"example.com", false}, {"93.184.216.34", false}, {"localhost.example.com", false},
	}
	for _, tc := range tests {
		if got := OnThisMachine(tc.host); got != tc.want {
			t.Errorf("OnThisMachine(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !OnThisMachine(n.IP.String()) {
			t.Errorf("this machine's address %s is not on this machine", n.IP)
		}
	}
}

func TestLoopbackPort(t *testing.T) {
	tests := []struct {
		pattern string
		port    int
	}{
		{"127.0.0.1:11434", 11434}, {"[::1]:5432", 5432}, {"localhost:5432", 5432}, {"LocalHost:80", 80},
		{"127.0.0.1", 0}, {"localhost", 0}, {"127.0.0.2:80", 0}, {"0.0.0.0:80", 0}, {"example.com:80", 0},
		{"127.0.0.1:0", 0}, {"127.0.0.1:99999", 0}, {"127.0.0.0/8", 0}, {"*", 0},
	}
	for _, tc := range tests {
		p, ok := loopbackPort(tc.pattern)
		if ok != (tc.port != 0) || p != tc.port && ok {
			t.Errorf("loopbackPort(%q) = %d, %v, want %d", tc.pattern, p, ok, tc.port)
		}
	}
}

// The proxy's refusal names the destination and the exact command that
// asks a human, in the body and in headers.
func TestProxyRefusalSaysHowToAsk(t *testing.T) {
	a, b := net.Pipe()
	go func() { writeRefusal(a, "127.0.0.1:5432", "no\r\nInjected: yes"); a.Close() }()
	buf := make([]byte, 4096)
	var out strings.Builder
	for {
		n, err := b.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			break
		}
	}
	got := out.String()
	for _, want := range []string{
		"HTTP/1.1 403 " + RefusedText + "\r\n",
		"X-Sandbox-Refused: 127.0.0.1:5432\r\n",
		"X-Sandbox-Ask: sandbox request --reason 'needs 127.0.0.1:5432' -- COMMAND ARGS...\r\n",
		"sandbox: to ask a human (unless one has just denied it), run the command that needs it as: sandbox request --reason 'needs 127.0.0.1:5432' -- COMMAND ARGS...",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("refusal lacks %q:\n%s", want, got)
		}
	}
	if head, _, _ := strings.Cut(got, "\r\n\r\n"); strings.Contains(head, "Injected") {
		t.Errorf("the reason reached the headers:\n%s", got)
	}
}
