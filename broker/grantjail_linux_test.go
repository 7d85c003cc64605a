//go:build linux

package broker_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/jail_linux"
	"github.com/sandbox-dev/sandbox/launcher"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// requireJail skips (fails under SANDBOX_STRICT_SKIPS=1) unless every
// layer of the jail is there: root, Landlock, namespaces, cgroups.
func requireJail(t testing.TB) {
	t.Helper()
	testenv.RequireRoot(t)
	for _, lr := range launcher.Probe().Layers {
		if lr.Status != launcher.StatusOK {
			testenv.Skip(t, "jail layer "+string(lr.Layer)+": "+lr.Detail)
		}
	}
}

// grantEnv is a project with a bus, a per-user state dir holding a key
// (hidden in every jail) and a grant jail for it.
type grantEnv struct {
	root, state, key string
	jail             *launcher.GrantJail
}

func newGrantEnv(t testing.TB) grantEnv {
	t.Helper()
	root := t.TempDir()
	f, err := folder.New(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Subdirs() {
		os.MkdirAll(d, 0o755)
	}
	state := t.TempDir()
	key := filepath.Join(state, "key")
	os.WriteFile(key, []byte("PER-USER-KEY\n"), 0o600)
	return grantEnv{root: root, state: state, key: key, jail: &launcher.GrantJail{Folder: f, StateDir: state}}
}

func (g grantEnv) run(t *testing.T, script string, grant broker.Grant, timeout time.Duration) broker.Outcome {
	t.Helper()
	oc, err := broker.Run(context.Background(), broker.Spec{
		Root: g.root, Script: script, Env: broker.Scrub(os.Environ(), nil),
		Timeout: timeout, Jail: g.jail, Grant: grant,
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return oc
}

// TestGrantJailWritesOnlyWhatWasApproved: `sh evil.sh > OUT` approved for
// its write to OUT. evil.sh is the agent's: it also tries to write
// elsewhere outside the project, read the per-user key and reach a
// server on the host. Only OUT changes; the rest fails.
func TestGrantJailWritesOnlyWhatWasApproved(t *testing.T) {
	requireJail(t)
	g := newGrantEnv(t)
	outside, elsewhere := outsideDir(t), outsideDir(t)
	out := filepath.Join(outside, "path")
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	reached := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			reached <- struct{}{}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	evil := "echo x\n" +
		"echo pwned > " + filepath.Join(elsewhere, "other") + "\n" +
		"echo pwned > " + filepath.Join(outside, "beside") + "\n" +
		"cat " + g.key + " >&2\n" +
		"exec 3<>/dev/tcp/127.0.0.1/" + itoa(port) + " && echo connected >&2\n"
	os.WriteFile(filepath.Join(g.root, "evil.sh"), []byte(evil), 0o644)
	grant := broker.Grant{Write: []string{out}}
	oc := g.run(t, "bash evil.sh > "+out, grant, time.Minute)
	if !oc.Jailed {
		t.Fatalf("not jailed: %q", oc.Where)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "x\n" {
		t.Errorf("approved target holds %q (%v), want x", b, err)
	}
	for _, p := range []string{filepath.Join(elsewhere, "other"), filepath.Join(outside, "beside")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written: the grant covered only %s", p, out)
		}
	}
	if strings.Contains(oc.Stderr, "PER-USER-KEY") || strings.Contains(oc.Stderr, "connected") {
		t.Errorf("the jail leaked:\n%s", oc.Stderr)
	}
	select {
	case <-reached:
		t.Error("a write-only grant reached a server on the host")
	case <-time.After(100 * time.Millisecond):
	}
	if !strings.Contains(strings.Join(oc.Where, "\n"), "write: "+out) {
		t.Errorf("Where does not name the grant: %q", oc.Where)
	}
}

// TestGrantJailReadGrant: a granted read of a hidden tree's file shows
// that file and nothing else of the tree; the per-user state dir stays
// hidden whatever the grant says.
func TestGrantJailReadGrant(t *testing.T) {
	requireJail(t)
	g := newGrantEnv(t)
	oc := g.run(t, "cat "+g.key+"; echo rc=$?", broker.Grant{Read: []string{g.key}}, time.Minute)
	if strings.Contains(oc.Stdout, "PER-USER-KEY") {
		t.Errorf("a grant opened the per-user state: %q", oc.Stdout)
	}
}

// TestGrantJailKillsEverything: a process that setsid's away from the
// command's group dies when the command ends and when it times out.
func TestGrantJailKillsEverything(t *testing.T) {
	requireJail(t)
	for _, tc := range []struct {
		name, script string
		timeout      time.Duration
	}{
		{"end", "setsid sleep 4321.5 </dev/null >/dev/null 2>&1 & sleep 0.2; echo done", time.Minute},
		{"timeout", "setsid sleep 4321.5 </dev/null >/dev/null 2>&1 & sleep 1000", time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGrantEnv(t)
			oc := g.run(t, tc.script, broker.Grant{}, tc.timeout)
			if tc.timeout == time.Second && !oc.TimedOut {
				t.Errorf("not timed out: %+v", oc)
			}
			testenv.WaitFor(t, "the setsid'd sleep to die", func() bool { return len(processesWith("4321.5")) == 0 })
		})
	}
}

// TestGrantJailFallsBackUnjailed: without Landlock the command runs
// without a jail, in a cgroup of its own, and says so; a setsid'd
// process still dies with it.
func TestGrantJailFallsBackUnjailed(t *testing.T) {
	requireJail(t)
	g := newGrantEnv(t)
	g.jail.Jail = noLandlock{&jail_linux.Jail{}}
	oc := g.run(t, "setsid sleep 4321.6 </dev/null >/dev/null 2>&1 & echo ran", broker.Grant{}, time.Minute)
	if oc.Jailed || oc.Stdout != "ran\n" || !strings.Contains(strings.Join(oc.Where, " "), "WITHOUT a jail") ||
		!strings.Contains(strings.Join(oc.Where, " "), "Landlock") {
		t.Errorf("outcome %+v", oc)
	}
	testenv.WaitFor(t, "the setsid'd sleep to die", func() bool { return len(processesWith("4321.6")) == 0 })
}

// noLandlock is this machine's jail, reported without Landlock.
type noLandlock struct{ *jail_linux.Jail }

func (j noLandlock) Probe() jailspec.Report {
	r := j.Jail.Probe()
	r.Set(jailspec.LayerReport{Layer: jailspec.LayerLandlock, Status: jailspec.StatusMissing, Detail: "test: no Landlock"})
	return r
}

// outsideDir is a directory that no jail writes (not under a temp dir:
// the project jail writes those).
func outsideDir(t testing.TB) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(home, ".broker-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// processesWith lists the pids whose command line contains arg.
func processesWith(arg string) []string {
	entries, _ := os.ReadDir("/proc")
	var pids []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), arg) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestGrantJailSecretsOnlyWhenGranted: the project jail hides ~/.ssh; a
// grant for a write leaves it hidden, a grant for git's credentials (what
// GrantFor gives `git push`) shows it.
func TestGrantJailSecretsOnlyWhenGranted(t *testing.T) {
	requireJail(t)
	g := newGrantEnv(t)
	home := outsideDir(t)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id"), []byte("SSH-KEY\n"), 0o600)
	env := append(broker.Scrub(os.Environ(), nil), "HOME="+home)
	runAs := func(grant broker.Grant) broker.Outcome {
		oc, err := broker.Run(context.Background(), broker.Spec{
			Root: g.root, Script: "cat ~/.ssh/id", Env: env, Timeout: time.Minute, Jail: g.jail, Grant: grant,
		})
		if err != nil {
			t.Fatal(err)
		}
		return oc
	}
	out := filepath.Join(outsideDir(t), "out")
	if oc := runAs(broker.Grant{Write: []string{out}}); strings.Contains(oc.Stdout, "SSH-KEY") || !oc.Jailed {
		t.Errorf("a write grant read ~/.ssh/id: %+v", oc)
	}
	push := broker.GrantFor([]policy.Part{{Trigger: policy.Shell, Subject: "git push origin master", Decision: policy.Escalate}}, g.root, home, env)
	if push.Net != broker.NetAll || !slices.Contains(push.Read, filepath.Join(home, ".ssh")) {
		t.Fatalf("git push grant %+v", push)
	}
	if oc := runAs(push); oc.Stdout != "SSH-KEY\n" {
		t.Errorf("git's credentials grant did not show ~/.ssh/id: %+v", oc)
	}
}

// TestGrantJailNeverWritesTrustedState: a grant that names the bus or the
// per-user state dir (a planted remote URL, say) leaves them unwritable.
func TestGrantJailNeverWritesTrustedState(t *testing.T) {
	requireJail(t)
	g := newGrantEnv(t)
	bus := filepath.Join(g.root, ".sandbox", "policy.yaml")
	os.WriteFile(bus, []byte("v: 1\n"), 0o644)
	oc := g.run(t, "echo x >> "+bus+"; echo x >> "+g.key, broker.Grant{Write: []string{bus, g.state}}, time.Minute)
	if b, _ := os.ReadFile(bus); string(b) != "v: 1\n" {
		t.Errorf("the grant wrote the bus: %q", b)
	}
	if b, _ := os.ReadFile(g.key); string(b) != "PER-USER-KEY\n" {
		t.Errorf("the grant wrote the per-user state: %q (%+v)", b, oc)
	}
}
