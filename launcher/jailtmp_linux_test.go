//go:build linux

package launcher

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func init() { probes["unixown"] = probeUnixOwn }

// probeUnixOwn listens on a unix socket at args[0] and connects to it: a
// socket the jail makes is its own to use.
func probeUnixOwn(args []string) error {
	ln, err := net.Listen("unix", args[0])
	if err != nil {
		return err
	}
	defer ln.Close()
	c, err := net.Dial("unix", args[0])
	closeIf(c)
	return err
}

// hostTmp is a fresh directory of the host's own /tmp (not $TMPDIR) with
// the given prefix.
func hostTmp(t *testing.T, prefix string) string {
	t.Helper()
	d, err := os.MkdirTemp("/tmp", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// TestJailSharedScratch: with SharedTmp (connector mode's jailed
// commands) the jail works in the host's own /tmp and /var/tmp, so a file
// the agent's unjailed tools wrote there is read and one the jail writes
// is there for the next command, while every socket found there when the
// jail starts stays out of reach: in a tmux-like socket dir, a bare socket
// file (renamed after its bind: the kernel's table cannot place it, so the
// init walks), one three levels down, one six levels down (beyond the
// walk), one in /var/tmp. /dev/shm stays private.
func TestJailSharedScratch(t *testing.T) {
	e := newJailEnv(t)
	m := jailModes[0]
	host := hostTmp(t, "sandbox-shared-")
	mustWrite(t, filepath.Join(host, "test.py"), "print('from the host')")
	tmux := unixServer(t, hostTmp(t, "tmux-test-")) // as tmux -S /tmp/tmux-UID/default
	bare := hostTmp(t, "sandbox-bare-")
	bareSock := unixServer(t, bare)
	loose := "/tmp/" + filepath.Base(bare) + ".sock" // a socket file right in /tmp, as /tmp/.s.PGSQL.5432
	if err := os.Rename(bareSock, loose); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(loose) })
	deep := filepath.Join(host, "a")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	deepSock := unixServer(t, deep) // /tmp/X/a/agent.sock: the third level, the walk's last
	deeper := filepath.Join(host, "a", "b", "c", "d", "e")
	if err := os.MkdirAll(deeper, 0o755); err != nil {
		t.Fatal(err)
	}
	deeperSock := unixServer(t, deeper) // beyond any walk: found in the kernel's socket table
	varTmp, err := os.MkdirTemp("/var/tmp", "sandbox-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(varTmp) })
	varSock := unixServer(t, varTmp)
	shallow := unixServer(t, hostTmp(t, "sandbox-app-")) // /tmp/app/agent.sock, as many tools place theirs
	work := hostTmp(t, "ssh-work-")                      // a writable tree named like ssh-agent's dir: not hidden
	mustWrite(t, filepath.Join(work, "keep"), "kept")
	shm := "/dev/shm/sandbox-test-" + filepath.Base(host)
	mustWrite(t, shm, "host")
	t.Cleanup(func() { os.Remove(shm) })
	script := try + fmt.Sprintf(`
try read-host grep -q 'from the host' %[2]s/test.py
try write-host sh -c 'echo from-the-jail > %[2]s/out.txt'
try write-var-tmp sh -c 'echo from-the-jail > %[3]s/out.txt'
try tmux-socket sh -c '%[1]s probe unix %[4]s | grep -q ^ok'
try loose-socket sh -c '%[1]s probe unix %[5]s | grep -q ^ok'
try app-socket sh -c '%[1]s probe unix %[6]s | grep -q ^ok'
try var-tmp-socket sh -c '%[1]s probe unix %[7]s | grep -q ^ok'
try rm-loose-socket rm -f %[5]s
try deep-socket sh -c '%[1]s probe unix %[8]s | grep -q ^ok'
try see-shm test -e %[9]s
try own-socket sh -c '%[1]s probe unixown %[2]s/own.sock | grep -q ^ok'
try read-work grep -q kept %[10]s/keep
try deeper-socket sh -c '%[1]s probe unix %[11]s | grep -q ^ok'
`, e.probe, host, varTmp, tmux, loose, shallow, varSock, deepSock, shm, work, deeperSock)
	got, out := e.shLines(t, m, script, func(o *Options) {
		o.SharedTmp = true
		o.Writable = append(o.Writable, work)
	})
	want := map[string]string{
		"read-host": "ok", "read-work": "ok", "write-host": "ok", "write-var-tmp": "ok", "own-socket": "ok",
		"tmux-socket": "denied", "loose-socket": "denied", "app-socket": "denied", "var-tmp-socket": "denied",
		"deep-socket": "denied", "deeper-socket": "denied", "rm-loose-socket": "denied", "see-shm": "denied",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %s\n%s", k, got[k], v, out)
		}
	}
	for _, d := range []string{host, varTmp} {
		if b, err := os.ReadFile(filepath.Join(d, "out.txt")); err != nil || string(b) != "from-the-jail\n" {
			t.Errorf("the jail's file in %s is not on the host: %q, %v", d, b, err)
		}
	}
	if _, err := os.Stat(loose); err != nil {
		t.Errorf("the host's socket went away: %v", err)
	}
}

// TestJailSharedScratchOffByDefault: without SharedTmp (run mode) a
// file of the host's /tmp is not in the jail, and nothing the jail writes
// there reaches the host.
func TestJailSharedScratchOffByDefault(t *testing.T) {
	e := newJailEnv(t)
	host := hostTmp(t, "sandbox-shared-")
	mustWrite(t, filepath.Join(host, "test.py"), "x")
	script := try + fmt.Sprintf("try see-host test -e %[1]s/test.py\ntry write sh -c 'mkdir -p %[1]s && echo x > %[1]s/out.txt'\n", host)
	got, out := e.shLines(t, jailModes[0], script)
	if got["see-host"] != "denied" || got["write"] != "ok" {
		t.Errorf("see-host %q (want denied), write %q (want ok, in the jail's own /tmp)\n%s", got["see-host"], got["write"], out)
	}
	if _, err := os.Stat(filepath.Join(host, "out.txt")); err == nil {
		t.Error("a file written in the private /tmp reached the host")
	}
}

// TestJailCommandUnderTmp: a command whose program lies in the host's
// /tmp (an agent unpacked there, a downloaded tool) runs in a jail whose
// /tmp is private, found by path or on PATH, and a known agent's
// directory there stays read-only, as anywhere else.
func TestJailCommandUnderTmp(t *testing.T) {
	e := newJailEnv(t)
	dir := hostTmp(t, "sandbox-agent-")
	script := "#!/bin/sh\necho agent-ran \"$@\"\nif echo x > \"$(dirname \"$0\")/planted\" 2>/dev/null; then echo WROTE-BINARY-DIR; fi\n"
	for _, name := range []string{"agent", "claude"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := fakeHome(t)
	for _, tc := range []struct{ name, argv0 string }{
		{"by path", filepath.Join(dir, "agent")},
		{"known agent by path", filepath.Join(dir, "claude")},
		{"known agent on PATH", "claude"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := e.options(jailModes[0], tc.argv0, "hello")
			o.Env = append(withHome(o.Env, home), "PATH="+dir+":/usr/bin:/bin")
			out, res := runJailed(t, o)
			if res.Code != 0 || !strings.Contains(out, "agent-ran hello") {
				t.Fatalf("exit %d, want the program's own output:\n%s", res.Code, out)
			}
			if filepath.Base(tc.argv0) == "claude" && strings.Contains(out, "WROTE-BINARY-DIR") {
				t.Errorf("the agent's binary dir was writable in the jail:\n%s", out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "planted")); err == nil {
		t.Error("a file written next to the program reached the host's /tmp")
	}
}
