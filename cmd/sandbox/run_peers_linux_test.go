//go:build linux

package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// The peers' own sandbox test suites, translated case by case to `sandbox
// run`: Anthropic's sandbox-runtime (test/sandbox/integration.test.ts and
// mandatory-deny-paths.test.ts) and Codex's Linux sandbox
// (codex-rs/linux-sandbox/tests/suite/sandbox.rs and landlock.rs). Each
// case is a bash script run in the jail through the real binary, in CI
// mode (no human: every escalation is refused); it exits 0 when the
// boundary held (or, for a positive control, when the everyday thing
// worked). docs/THREAT-MODEL.md has the table, with the cases we do not
// claim and why.
type peerCase struct {
	name   string // "peer: the peer's own test name"
	script string // @ROOT@, @OUT@, @PORT@, @TCP@, @SOCK@, @HOSTTMP@, @HOME@ are replaced
	// after, when set, checks the host after the run.
	after func(t *testing.T, p *peerEnv)
}

// peerEnv is one project with a policy that allows one local HTTP server
// (the "allowlisted domain") and a wildcard domain, plus things outside
// the project the jail must not reach.
type peerEnv struct {
	bin, root, out, home string
	env                  []string // of every sandbox process: HOME and the state
	port, tcp            int      // allowed HTTP server; a host TCP service nobody allowed
	sock, hostTmp        string   // a unix socket and a file in the host's /tmp
	repl                 *strings.Replacer
}

func newPeerEnv(t *testing.T) *peerEnv {
	t.Helper()
	p := &peerEnv{bin: sandboxBinary(t), root: jailProject(t), out: outsideTmp(t), home: outsideTmp(t)}
	if out, err := exec.Command("git", "-C", p.root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for _, f := range []string{".git/hooks/pre-commit", "README.md", ".codex/config.toml", "blocked/secret.txt"} {
		mustWriteFile(t, filepath.Join(p.root, f), "original")
	}
	mustWriteFile(t, filepath.Join(p.home, ".ssh/id_ed25519"), "PRIVATE KEY")
	mustWriteFile(t, filepath.Join(p.home, ".aws/config"), "original")
	p.env = append(append(os.Environ(), "HOME="+p.home), stateEnv(p.root)...)
	p.port = peerHTTP(t)
	p.tcp = peerTCP(t)
	p.sock, p.hostTmp = peerUnix(t), peerHostTmp(t)
	p.repl = strings.NewReplacer("@ROOT@", p.root, "@OUT@", p.out, "@PORT@", strconv.Itoa(p.port),
		"@TCP@", strconv.Itoa(p.tcp), "@SOCK@", p.sock, "@HOSTTMP@", p.hostTmp, "@HOME@", p.home)
	p.sandbox(t, "init", p.root)
	pol := filepath.Join(p.root, ".sandbox/policy.yaml")
	src, err := os.ReadFile(pol)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), "network:\n  allow:\n",
		"network:\n  allow:\n    - 127.0.0.1:"+strconv.Itoa(p.port)+"\n    - \"*.github.com:80\"\n", 1)
	s = strings.Replace(s, "read:\n  allow:\n    - \"/**\"                # anywhere ...\n",
		"read:\n  deny:\n    - "+p.root+"/blocked/\n  allow:\n    - \"/**\"                # anywhere ...\n", 1)
	if s == string(src) {
		t.Fatal("the default policy changed shape: update the peers' policy edits")
	}
	mustWriteFile(t, pol, s)
	p.sandbox(t, "policy", "accept", "--yes", "--dir", p.root)
	return p
}

func (p *peerEnv) sandbox(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command(p.bin, args...)
	cmd.Dir, cmd.Env = p.root, p.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sandbox %v: %v\n%s", args, err, out)
	}
}

// run runs script in the jail and returns its exit code and output.
func (p *peerEnv) run(t *testing.T, script string) (int, string) {
	t.Helper()
	cmd := exec.Command(p.bin, "run", "--ci", "--dir", p.root, "--", "/bin/bash", "-c", p.repl.Replace(script))
	cmd.Dir, cmd.Env = p.root, p.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

// proxied fetches a URL through the run's proxy with the real curl (not
// the shim) and prints the HTTP status; 000 when no answer came.
const proxied = `/usr/bin/curl -s -o /dev/null -w '%{http_code}' --max-time 5 --noproxy '' -x "$HTTP_PROXY" `

var peerCases = []peerCase{
	// sandbox-runtime: test/sandbox/integration.test.ts.
	{name: "srt: should block Unix socket connections (a host socket in /tmp)",
		script: `! perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Peer => "@SOCK@") or exit 1'`},
	{name: "srt: should block HTTP requests to non-allowlisted domains",
		script: `[ "$(` + proxied + `http://blocked.example/)" = 403 ]`},
	{name: "srt: should block HTTP requests to anthropic.com (not in allowlist)",
		script: `[ "$(` + proxied + `http://anthropic.com/)" = 403 ]`},
	{name: "srt: should allow HTTP requests to allowlisted domains",
		script: `[ "$(` + proxied + `http://127.0.0.1:@PORT@/)" = 200 ]`},
	{name: "srt: should block writes outside current working directory",
		script: `! echo x > @OUT@/escape.txt && [ ! -e @OUT@/escape.txt ]`},
	{name: "srt: should allow writes within current working directory",
		script: `echo x > @ROOT@/inside.txt && [ "$(cat @ROOT@/inside.txt)" = x ]`},
	{name: "srt: should allow reads from anywhere (secrets excepted)",
		script: `cat /etc/passwd >/dev/null && ls /usr/bin >/dev/null && ! cat @HOME@/.ssh/id_ed25519`},
	{name: "srt: should execute basic commands successfully",
		script: `[ "$(echo hello)" = hello ]`},
	{name: "srt: should handle complex command pipelines",
		script: `[ "$(echo a b c | tr ' ' '\n' | grep -v b | wc -l)" = 2 ]`},
	{name: "srt: should default to bash when binShell is not specified",
		script: `[ -n "$BASH_VERSION" ]`},
	{name: "srt: should isolate PID namespace - sandboxed processes cannot see host PIDs",
		script: `n=$(ls /proc | grep -cE '^[0-9]+$'); [ "$n" -gt 0 ] && [ "$n" -lt 30 ]`},
	{name: "srt: should prevent symlink-based filesystem escape attempts",
		script: `ln -s @OUT@/via-link.txt @ROOT@/escape-link; ! echo escaped > @ROOT@/escape-link && [ ! -e @OUT@/via-link.txt ]`},
	{name: "srt: should terminate background processes when sandbox exits",
		script: `(while :; do echo alive >> @ROOT@/bg-marker; sleep 0.1; done) & sleep 0.5`,
		after:  assertMarkerStops("bg-marker")},
	{name: "srt: should prevent privilege escalation attempts (setuid copy)",
		script: `cp /bin/bash @ROOT@/suid && chmod u+s @ROOT@/suid; @ROOT@/suid -p -c 'grep -q "^CapEff:[[:space:]]*0000000000000000" /proc/self/status'`},
	{name: "srt: should prevent privilege escalation attempts (sudo, su)",
		script: `! sudo -n true 2>/dev/null && ! su -c true 2>/dev/null </dev/null`},
	{name: "srt: should enforce network restrictions across protocols and ports (HTTPS)",
		script: `! /usr/bin/curl -s --max-time 5 --noproxy '' -x "$HTTP_PROXY" https://blocked.example/`},
	{name: "srt: should enforce network restrictions across protocols and ports (port 8080)",
		script: `[ "$(` + proxied + `http://blocked.example:8080/)" = 403 ]`},
	{name: "srt: should enforce network restrictions across protocols and ports (direct IP)",
		script: `[ "$(` + proxied + `http://1.1.1.1/)" = 403 ]`},
	{name: "srt: should enforce wildcard domain pattern matching correctly (subdomain matches)",
		script: `[ "$(` + proxied + `http://api.github.com/)" != 403 ]`},
	{name: "srt: should enforce wildcard domain pattern matching correctly (apex and look-alike do not)",
		script: `[ "$(` + proxied + `http://github.com/)" = 403 ] && [ "$(` + proxied + `http://evilgithub.com/)" = 403 ]`},
	{name: "srt: should prevent creation of special file types (FIFO allowed inside)",
		script: `mkfifo @ROOT@/fifo && [ -p @ROOT@/fifo ]`},
	{name: "srt: should prevent creation of special file types (hard link outside)",
		script: `! ln /etc/passwd @ROOT@/passwd-link 2>/dev/null`},
	{name: "srt: should prevent creation of special file types (device node)",
		script: `! mknod @ROOT@/mem c 1 1 2>/dev/null && [ ! -e @ROOT@/mem ]`},
	{name: "srt: should block all HTTP requests when allowedDomains is empty (direct, no proxy)",
		script: `! /usr/bin/curl -s --max-time 3 --noproxy '*' http://1.1.1.1/`},
	{name: "srt: should block DNS lookups when allowedDomains is empty",
		script: `! getent ahosts example.com`},
	{name: "srt: should block wget when allowedDomains is empty",
		script: `! /usr/bin/wget -q -T 3 -O /dev/null http://blocked.example/`},
	{name: "srt: should allow local filesystem operations when network is blocked",
		script: `mkdir -p @ROOT@/d && echo x > @ROOT@/d/f && mv @ROOT@/d/f @ROOT@/d/g && rm @ROOT@/d/g`},

	// sandbox-runtime: test/sandbox/mandatory-deny-paths.test.ts. The
	// shell dotfiles live in the home, which the jail cannot write at all.
	{name: "srt: blocks writes to .bashrc", script: `! echo x >> @HOME@/.bashrc`},
	{name: "srt: blocks writes to .gitconfig", script: `! echo x >> @HOME@/.gitconfig`},
	{name: "srt: blocks writes to .zshrc", script: `! echo x >> @HOME@/.zshrc`},
	{name: "srt: blocks writes to .profile", script: `! echo x >> @HOME@/.profile`},
	{name: "srt: blocks writes to .bash_profile", script: `! echo x >> @HOME@/.bash_profile`},
	{name: "srt: blocks writes to .zprofile", script: `! echo x >> @HOME@/.zprofile`},
	{name: "srt: blocks writes to .mcp.json", script: `! echo x > @ROOT@/.mcp.json`},
	{name: "srt: blocks writes to .git/config", script: `! echo x >> @ROOT@/.git/config`},
	{name: "srt: blocks writes to .git/hooks/pre-commit",
		script: `! echo x >> @ROOT@/.git/hooks/pre-commit && [ "$(cat @ROOT@/.git/hooks/pre-commit)" = original ]`},
	{name: "srt: blocks writes to .vscode/", script: `! mkdir -p @ROOT@/.vscode 2>/dev/null || ! echo x > @ROOT@/.vscode/tasks.json`},
	{name: "srt: blocks writes to .claude/commands/",
		script: `! { mkdir -p @ROOT@/.claude/commands && echo x > @ROOT@/.claude/commands/x.md; } 2>/dev/null`},
	{name: "srt: blocks writes to .claude/agents/",
		script: `! { mkdir -p @ROOT@/.claude/agents && echo x > @ROOT@/.claude/agents/x.md; } 2>/dev/null`},
	{name: "srt: blocks writes to .idea/",
		script: `! { mkdir -p @ROOT@/.idea && echo x > @ROOT@/.idea/workspace.xml; } 2>/dev/null`},
	// Beyond srt's list: the CI configuration a push would run with the
	// repository's secrets.
	{name: "ours: CI configuration cannot be created",
		script: `for f in .gitlab-ci.yml .circleci/config.yml .github/actions/a/action.yml .github/workflows/w.yml; do ! { mkdir -p "$(dirname @ROOT@/$f)" && echo x > @ROOT@/$f; } 2>/dev/null || exit 1; done`},
	{name: "srt: allows writes to regular files", script: `echo x > @ROOT@/regular.txt`},
	{name: "srt: allows writes to .git/objects, .git/refs/heads and .git/index (git add, git commit)",
		script: `cd @ROOT@ && /usr/bin/git add README.md && /usr/bin/git -c user.name=a -c user.email=a@b commit -qm x && /usr/bin/git log --oneline | grep -q x`},

	// Codex: codex-rs/linux-sandbox/tests/suite/sandbox.rs and landlock.rs.
	{name: "codex: test_root_read", script: `ls -l /bin >/dev/null`},
	{name: "codex: test_root_write", script: `! echo blah > @OUT@/root-write`},
	{name: "codex: test_dev_null_write", script: `echo blah > /dev/null`},
	{name: "codex: bwrap_populates_minimal_dev_nodes",
		script: `for n in null zero full random urandom tty; do [ -c /dev/$n ] || exit 1; done`},
	{name: "codex: /dev/shm is the jail's own (writes do not reach the host's)",
		script: `echo jail > /dev/shm/peer-shm && [ "$(cat /dev/shm/peer-shm)" = jail ]`,
		after: func(t *testing.T, _ *peerEnv) {
			if _, err := os.Stat("/dev/shm/peer-shm"); err == nil {
				os.Remove("/dev/shm/peer-shm")
				t.Error("the jail's /dev/shm file appeared on the host")
			}
		}},
	{name: "codex: test_writable_root", script: `echo blah > @ROOT@/test`},
	{name: "codex: test_no_new_privs_is_enabled", script: `grep -q '^NoNewPrivs:[[:space:]]*1$' /proc/self/status`},
	{name: "codex: sandboxed_command_has_no_effective_or_permitted_capabilities",
		script: `grep -q '^CapEff:[[:space:]]*0000000000000000$' /proc/self/status && grep -q '^CapPrm:[[:space:]]*0000000000000000$' /proc/self/status`},
	{name: "codex: sandbox_blocks_curl", script: `! /usr/bin/curl -sI --max-time 3 --noproxy '*' http://openai.com`},
	{name: "codex: sandbox_blocks_wget", script: `! /usr/bin/wget -q -T 3 -O- --no-proxy http://openai.com`},
	{name: "codex: sandbox_blocks_ping (raw ICMP socket)",
		script: `! perl -e 'socket(my $s, 2, 3, 1) or exit 1'`},
	{name: "codex: sandbox_blocks_nc (a host loopback service)",
		script: `! timeout 3 bash -c 'exec 3<>/dev/tcp/127.0.0.1/@TCP@' 2>/dev/null`},
	{name: "codex: sandbox_blocks_ssh", script: `! ssh -o BatchMode=yes -o ConnectTimeout=1 github.com true 2>/dev/null`},
	{name: "codex: sandbox_blocks_getent", script: `! getent ahosts openai.com`},
	{name: "codex: sandbox_blocks_dev_tcp_redirection",
		script: `! timeout 3 bash -c 'echo hi > /dev/tcp/1.1.1.1/80' 2>/dev/null`},
	{name: "codex: sandbox_blocks_metadata_writes_inside_writable_root (.git)",
		script: `! printf changed > @ROOT@/.git/config`},
	{name: "codex: sandbox_blocks_metadata_writes_inside_writable_root (.codex)",
		script: `! printf changed > @ROOT@/.codex/config.toml && [ "$(cat @ROOT@/.codex/config.toml)" = original ]`},
	{name: "codex: sandbox_blocks_metadata_writes_inside_writable_root (.aws in the home)",
		script: `! printf changed > @HOME@/.aws/config`},
	{name: "codex: sandbox_blocks_codex_symlink_replacement_attack",
		script: `! { rm -rf @ROOT@/.codex && mkdir @ROOT@/decoy && ln -s @ROOT@/decoy @ROOT@/.codex && echo denied > @ROOT@/.codex/config.toml; } 2>/dev/null`,
		after: func(t *testing.T, p *peerEnv) {
			if b, err := os.ReadFile(filepath.Join(p.root, ".codex/config.toml")); err != nil || string(b) != "original" {
				t.Errorf(".codex/config.toml is %q, %v after the attack", b, err)
			}
		}},
	// The other half of this Codex test (a child `git init` fails) is not
	// claimed: Landlock has no name patterns, so the jail cannot refuse a
	// new sub/.git; the analyzer escalates git in a nested repository and
	// the broker refuses one that appeared after the request.
	{name: "codex: sandbox_keeps_parent_repo_discovery_while_blocking_child_metadata (discovery)",
		script: `mkdir -p @ROOT@/sub && cd @ROOT@/sub && [ "$(/usr/bin/git rev-parse --show-toplevel)" = @ROOT@ ]`},
	{name: "codex: sandbox_blocks_explicit_split_policy_carveouts (a policy read deny)",
		script: `! cat @ROOT@/blocked/secret.txt 2>/dev/null && ! echo denied > @ROOT@/blocked/secret.txt 2>/dev/null`},
	{name: "codex: sandbox_starts_with_denied_tmp_without_exposing_registry (host /tmp files)",
		script: `[ ! -e @HOSTTMP@ ] && cat @ROOT@/README.md >/dev/null`},
}

func TestPeerSandboxSuites(t *testing.T) {
	t.Parallel()
	requireRunJail(t)
	requireTools(t, "perl", "curl", "wget", "getent", "ssh", "git")
	p := newPeerEnv(t)
	for _, tc := range peerCases {
		t.Run(tc.name, func(t *testing.T) {
			code, out := p.run(t, tc.script)
			if code != 0 {
				t.Errorf("did not hold (exit %d):\n%s\n%s", code, p.repl.Replace(tc.script), out)
			}
			if tc.after != nil {
				tc.after(t, p)
			}
		})
	}
}

// TestPeerSandboxSuitesKillOnEnd: sandbox-runtime's "should kill child
// processes when sandbox is terminated via SIGTERM" and "should not leave
// orphan processes after timeout kills sandbox", with the supervisor
// killed from outside.
func TestPeerSandboxSuitesKillOnEnd(t *testing.T) {
	t.Parallel()
	requireRunJail(t)
	p := newPeerEnv(t)
	for _, sig := range []os.Signal{os.Interrupt, os.Kill} {
		t.Run(sig.String(), func(t *testing.T) {
			marker := "tick-" + strings.ReplaceAll(sig.String(), " ", "")
			cmd := exec.Command(p.bin, "run", "--ci", "--dir", p.root, "--", "/bin/bash", "-c",
				"for i in $(seq 1 500); do echo tick >> "+filepath.Join(p.root, marker)+"; sleep 0.05; done")
			cmd.Env = p.env
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(p.root, marker)
			testenv.WaitFor(t, path, func() bool { _, err := os.Stat(path); return err == nil })
			cmd.Process.Signal(sig)
			cmd.Wait()
			assertMarkerStops(marker)(t, p)
		})
	}
}

// assertMarkerStops checks that nothing appends to the marker any more.
func assertMarkerStops(name string) func(*testing.T, *peerEnv) {
	return func(t *testing.T, p *peerEnv) {
		t.Helper()
		path := filepath.Join(p.root, name)
		before, _ := os.ReadFile(path)
		time.Sleep(400 * time.Millisecond)
		if after, _ := os.ReadFile(path); len(after) != len(before) {
			t.Errorf("a jailed process outlived the run: %s grew from %d to %d bytes", name, len(before), len(after))
		}
	}
}

// outsideTmp is a fresh directory outside /tmp and /var/tmp (which the
// jail may make writable or private), removed at the end.
func outsideTmp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/lib", "sandbox-peers-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func requireTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Fatalf("%s is not installed (hack/deps.sh installs it)", n)
		}
	}
}

func mustWriteFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func peerHTTP(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "Example Domain")
	}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

func peerTCP(t *testing.T) int {
	return acceptAndClose(t, "tcp", "127.0.0.1:0").(*net.TCPAddr).Port
}

// acceptAndClose listens on addr and closes every connection it accepts,
// until the test ends.
func acceptAndClose(t *testing.T, network, addr string) net.Addr {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln.Addr()
}

// peerUnix listens on a pathname socket in the host's /tmp, where tmux,
// X11 and editors keep theirs.
func peerUnix(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "peer-sock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "default")
	acceptAndClose(t, "unix", path)
	return path
}

func peerHostTmp(t *testing.T) string {
	t.Helper()
	f, err := os.CreateTemp("/tmp", "peer-host-secret-")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("private")
	f.Close()
	t.Cleanup(func() { os.Remove(f.Name()) })
	return f.Name()
}
