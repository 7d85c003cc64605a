//go:build linux

package launcher

import (
	"bufio"
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// echoServer answers each line with the same line, until the test ends.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadString('\n')
				c.Write([]byte(line))
			}()
		}
	}()
	return ln.Addr().String()
}

func TestJailNetwork(t *testing.T) {
	e := newJailEnv(t)
	allowed, other := echoServer(t), echoServer(t)
	agentSock, projectSock := unixServer(t, t.TempDir()), unixServer(t, e.project.Root)
	decider, err := NewAllowList(allowed)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		probe string
		args  []string
		want  []string // substrings of the output
		mode  string   // only in this mode, if set
	}{
		{"direct TCP to a host listener", "connect", []string{other}, []string{"err E"}, ""},
		{"direct TCP to the allowed host", "connect", []string{allowed}, []string{"err E"}, "landlock-only"},
		// the allow list names a host loopback service (127.0.0.1:PORT):
		// with a network namespace it is forwarded onto the jail's loopback
		{"the allowed loopback service, forwarded", "connect", []string{allowed}, []string{"ok"}, "namespaces"},
		{"proxy passes an allowed host", "tunnel", []string{allowed}, []string{"status HTTP/1.1 200", "echo ping"}, ""},
		{"proxy denies an unlisted host", "tunnel", []string{other}, []string{"status HTTP/1.1 403"}, ""},
		{"proxy denies a disguised IP", "tunnel", []string{"0x7f.0.0.1:80"}, []string{"status HTTP/1.1 400"}, ""},
		{"UDP without a network namespace", "udp", nil, []string{"err EPERM"}, "landlock-only"},
		{"the user's agent socket is hidden", "unix", []string{agentSock}, []string{"err E"}, "namespaces"},
		{"control: a socket in the project", "unix", []string{projectSock}, []string{"ok"}, ""},
		{"UDP on the jail's own loopback", "udp", nil, []string{"ok"}, "namespaces"},
	}
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			var cases []probeCase
			var wants [][]string
			for _, tc := range tests {
				if tc.mode == "" || tc.mode == m.name {
					cases = append(cases, probeCase{tc.name, tc.probe, tc.args})
					wants = append(wants, tc.want)
				}
			}
			o := e.options(m, e.batchArgv(cases)...)
			o.Decider = decider
			o.Env = append(o.Env, "SSH_AUTH_SOCK="+agentSock)
			out, _ := runJailed(t, o)
			got := batchResults(t, out, len(cases))
			for i, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					for _, w := range wants[i] {
						if !strings.Contains(got[i], w) {
							t.Errorf("%s %v: %q lacks %q", c.probe, c.args, got[i], w)
						}
					}
				})
			}
		})
	}
}

// unixServer listens on a unix socket in dir until the test ends.
func unixServer(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "agent.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return path
}
