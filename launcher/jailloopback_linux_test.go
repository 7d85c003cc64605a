//go:build linux

package launcher

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

func init() {
	// echo: connect, send a line, read it back ("echo ping" on success)
	probes["echo"] = func(a []string) error {
		c, err := net.DialTimeout("tcp", a[0], 2*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "ping\n")
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return err
		}
		return verbatim("echo " + strings.TrimSpace(line))
	}
}

// hostService is a service of the developer's on this machine listening
// on every address (v4 and v6), as databases often do: the strongest
// case, reachable on the host through 127.0.0.1, ::1, 127.0.0.2 and the
// machine's LAN addresses alike. It echoes a line.
func hostService(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", ":0")
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
	return ln.Addr().(*net.TCPAddr).Port
}

// ownAddresses are this machine's non-loopback interface addresses.
func ownAddresses(t *testing.T) []netip.Addr {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var out []netip.Addr
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok && !ip.Unmap().IsLoopback() && !ip.IsLinkLocalUnicast() {
				out = append(out, ip.Unmap())
			}
		}
	}
	return out
}

// loopbackBus is a bus on e's project whose accepted policy is yaml.
func loopbackBus(t *testing.T, e *testJail, yaml string) (*Bus, *userstate.State) {
	t.Helper()
	st, err := userstate.OpenDir(filepath.Join(t.TempDir(), "state"), true)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, e.project.Policy(), yaml)
	if err := store.Accept(e.project, st, []byte(yaml)); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	b, err := OpenBus(BusOptions{Folder: e.project, State: st, Exe: exe, NetWait: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, st
}

// routes are every way a jailed program could try to reach a host
// service on port: directly and through the proxy.
func routes(t *testing.T, port int) []probeCase {
	p := strconv.Itoa(port)
	hostname, _ := os.Hostname()
	direct := []string{"127.0.0.1", "[::1]", "127.0.0.2", "localhost", "0.0.0.0", "[::]", "[::ffff:127.0.0.1]"}
	proxied := []string{"127.0.0.1", "[::1]", "127.0.0.2", "localhost", "ip6-localhost", "localhost.localdomain",
		"sub.localhost", "[::ffff:127.0.0.1]", "2130706433", "0177.0.0.1", "0x7f000001", "127.1", "0.0.0.0", "[::]"}
	if hostname != "" {
		direct = append(direct, hostname)
		proxied = append(proxied, hostname) // resolves to 127.0.1.1 or a LAN address
	}
	for _, ip := range ownAddresses(t) {
		h := ip.String()
		if ip.Is6() {
			h = "[" + h + "]"
		}
		direct, proxied = append(direct, h), append(proxied, h)
	}
	var cases []probeCase
	for _, h := range direct {
		cases = append(cases, probeCase{"direct " + h, "echo", []string{h + ":" + p}})
	}
	for _, h := range proxied {
		cases = append(cases, probeCase{"proxy " + h, "tunnel", []string{h + ":" + p}})
	}
	return cases
}

// With no rule naming the host's loopback service, no route from the jail
// reaches it, in either jail mode: directly there is nothing listening on
// the jail's loopback; through the proxy the host's loopback addresses
// (127.0.0.1, ::1) are asked about like any unknown destination (the
// scripted human denies), and every other address or name of this
// machine is refused on the spot. The policy allows every DNS name ("*"), so a name
// that resolves to this machine is stopped by the proxy's dial guard, not
// by the policy.
func TestJailLoopbackUnreachableWithoutRule(t *testing.T) {
	e := newJailEnv(t)
	port := hostService(t)
	cases := routes(t, port)
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			b, st := loopbackBus(t, e, "version: 1\nnetwork:\n  allow: [\"*\"]\n")
			seen := scriptedHuman(t, b, st, 0)
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan struct{})
			go func() { defer close(served); b.Serve(ctx) }()
			defer func() { cancel(); <-served }()
			o := e.options(m, e.batchArgv(cases)...)
			b.Apply(&o)
			out, _ := runJailed(t, o)
			got := batchResults(t, out, len(cases))
			for i, c := range cases {
				// refused by the kernel, or by the proxy: 4xx from the
				// policy, the parser or the human, 502 from the dial guard
				refused := strings.HasPrefix(got[i], "err") || strings.HasPrefix(got[i], "status HTTP/1.1 4") ||
					strings.HasPrefix(got[i], "status HTTP/1.1 502")
				if !refused || strings.Contains(got[i], "echo ping") {
					t.Errorf("%s reached the host's service: %s", c.name, got[i])
				}
			}
			for _, r := range seen() {
				if r.Kind != queue.KindNetwork || r.Network.Port != port || !hostLoopback(r.Network.Host) {
					t.Errorf("a human was asked about %+v %+v: only the host's loopback is asked about", r, r.Network)
				}
			}
		})
	}
}

// An unknown host loopback service reached through the proxy is a
// question for a human, as any unknown destination: approved, the
// connection is relayed to the host's service; the same port reached
// directly on the jail's loopback is not opened by that approval (only a
// rule forwards a port).
func TestJailLoopbackUnknownAsksAHuman(t *testing.T) {
	e := newJailEnv(t)
	port := hostService(t)
	b, st := loopbackBus(t, e, "version: 1\n")
	seen := scriptedHuman(t, b, st, port)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { defer close(served); b.Serve(ctx) }()
	defer func() { cancel(); <-served }()
	p := strconv.Itoa(port)
	cases := []probeCase{
		{"through the proxy", "tunnel", []string{"127.0.0.1:" + p}},
		{"directly", "echo", []string{"127.0.0.1:" + p}},
	}
	o := e.options(jailModes[0], e.batchArgv(cases)...)
	b.Apply(&o)
	out, _ := runJailed(t, o)
	got := batchResults(t, out, len(cases))
	if !strings.Contains(got[0], "echo ping") {
		t.Errorf("approved, yet: %s", got[0])
	}
	if strings.Contains(got[1], "echo ping") {
		t.Errorf("an approval through the proxy opened the jail's loopback: %s", got[1])
	}
	if reqs := seen(); len(reqs) != 1 || reqs[0].Kind != queue.KindNetwork || reqs[0].Network.Host != "127.0.0.1" ||
		reqs[0].Network.Port != port || reqs[0].Source != queue.SourceProxy {
		t.Errorf("requests %+v", reqs)
	}
}

// The proxy's refusal of a host loopback service says why and how to ask.
func TestJailLoopbackRefusalSaysHowToAsk(t *testing.T) {
	e := newJailEnv(t)
	curl := testenv.RequireCommand(t, "curl")
	port := hostService(t)
	b, _ := loopbackBus(t, e, "version: 1\n")
	url := "http://127.0.0.2:" + strconv.Itoa(port) + "/" // not the loopback a human is asked about
	o := e.options(jailModes[0], curl, "-s", "-i", "--noproxy", "", "-x", "http://127.0.0.1:"+strconv.Itoa(InnerProxyPort), url)
	b.Apply(&o)
	out, _ := runJailed(t, o)
	for _, want := range []string{"403 " + RefusedText, "X-Sandbox-Ask: sandbox request --reason", "is a service on this machine",
		"to ask a human (unless one has just denied it), run the command that needs it as: sandbox request"} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, out)
		}
	}
}

// An allow rule for 127.0.0.1:PORT opens exactly that port on the jail's
// loopback (relayed to the host's) and nothing else: not another port,
// not ::1 (the rule names 127.0.0.1). Here in connector mode's jail
// (--shared-tmp).
func TestJailLoopbackAllowRuleOpensOnePort(t *testing.T) {
	e := newJailEnv(t)
	port, other := hostService(t), hostService(t)
	b, _ := loopbackBus(t, e, fmt.Sprintf("version: 1\nnetwork:\n  allow: [\"127.0.0.1:%d\"]\n", port))
	p, q := strconv.Itoa(port), strconv.Itoa(other)
	cases := []probeCase{
		{"the allowed port", "echo", []string{"127.0.0.1:" + p}},
		{"the allowed port by name", "echo", []string{"localhost:" + p}},
		{"the allowed port through the proxy", "tunnel", []string{"127.0.0.1:" + p}},
		{"the same port on ::1", "echo", []string{"[::1]:" + p}},
		{"the same port on 127.0.0.2", "echo", []string{"127.0.0.2:" + p}},
		{"another port", "echo", []string{"127.0.0.1:" + q}},
		{"another port through the proxy", "tunnel", []string{"127.0.0.1:" + q}},
	}
	want := []bool{true, true, true, false, false, false, false}
	o := e.options(jailModes[0], e.batchArgv(cases)...)
	o.SharedTmp = true
	b.Apply(&o)
	out, _ := runJailed(t, o)
	got := batchResults(t, out, len(cases))
	for i, c := range cases {
		if reached := strings.Contains(got[i], "echo ping"); reached != want[i] {
			t.Errorf("%s: %s (want reached=%v)", c.name, got[i], want[i])
		}
	}
}

// An escalate rule for localhost:PORT forwards the port, and each
// connection waits for a human, driven here through the bus: approved, it
// reaches the host's service; denied, it does not. The human is asked
// about localhost:PORT, as the rule says.
func TestJailLoopbackEscalateRuleAsksAHuman(t *testing.T) {
	e := newJailEnv(t)
	port := hostService(t)
	for _, tc := range []struct {
		name    string
		approve int // the port the scripted human approves
		want    bool
	}{{"approved", port, true}, {"denied", 0, false}} {
		t.Run(tc.name, func(t *testing.T) {
			b, st := loopbackBus(t, e, fmt.Sprintf("version: 1\nnetwork:\n  escalate: [\"localhost:%d\"]\n", port))
			seen := scriptedHuman(t, b, st, tc.approve)
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan struct{})
			go func() { defer close(served); b.Serve(ctx) }()
			defer func() { cancel(); <-served }()
			cases := []probeCase{{"the escalated port", "echo", []string{"127.0.0.1:" + strconv.Itoa(port)}}}
			o := e.options(jailModes[0], e.batchArgv(cases)...)
			b.Apply(&o)
			out, _ := runJailed(t, o)
			if got := batchResults(t, out, 1); strings.Contains(got[0], "echo ping") != tc.want {
				t.Fatalf("%s, yet: %s", tc.name, got[0])
			}
			reqs := seen()
			if len(reqs) != 1 || reqs[0].Kind != queue.KindNetwork || reqs[0].Network.Host != "localhost" ||
				reqs[0].Network.Port != port || reqs[0].Source != queue.SourceProxy {
				t.Errorf("requests %+v", reqs)
			}
		})
	}
}

// A localhost:PORT rule reaches a host service that listens on 127.0.0.1
// alone from the jail's ::1 too (Node tries ::1 first for localhost, and
// the jail's listener has accepted before the host's side is dialled);
// a 127.0.0.1:PORT rule does not open ::1.
func TestJailLoopbackLocalhostRuleBothFamilies(t *testing.T) {
	e := newJailEnv(t)
	addr := echoServer(t) // 127.0.0.1 only
	_, p, _ := net.SplitHostPort(addr)
	cases := []probeCase{{"v4", "echo", []string{"127.0.0.1:" + p}}, {"v6", "echo", []string{"[::1]:" + p}}}
	for _, tc := range []struct {
		rule string
		want []bool
	}{{"localhost:" + p, []bool{true, true}}, {"127.0.0.1:" + p, []bool{true, false}}} {
		t.Run(tc.rule, func(t *testing.T) {
			b, _ := loopbackBus(t, e, fmt.Sprintf("version: 1\nnetwork:\n  allow: [%q]\n", tc.rule))
			o := e.options(jailModes[0], e.batchArgv(cases)...)
			b.Apply(&o)
			out, _ := runJailed(t, o)
			got := batchResults(t, out, len(cases))
			for i, c := range cases {
				if reached := strings.Contains(got[i], "echo ping"); reached != tc.want[i] {
					t.Errorf("%s: %s (want reached=%v)", c.name, got[i], tc.want[i])
				}
			}
		})
	}
}
