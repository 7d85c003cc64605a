package live

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/shims"
)

// The hook inside the jail reads the cache the supervisor writes for the
// shims: one file name for both.
func TestPolicyCacheIsTheShims(t *testing.T) {
	t.Parallel()
	if got, want := filepath.Join("d", policyCacheName), shims.CachePath("d"); got != want {
		t.Fatalf("hook reads %s, the supervisor writes %s", got, want)
	}
}

// The jailed hook asks the supervisor of the run whose session the
// launcher put in the jail's environment.
func TestRunSessionIsTheShims(t *testing.T) {
	t.Parallel()
	if runSessionVar != shims.EnvSession {
		t.Fatalf("hook reads $%s, the launcher sets $%s", runSessionVar, shims.EnvSession)
	}
}

// display.SingleQuote makes any script one argument that bash reads back byte for
// byte: quotes, substitutions, newlines and backslashes stay inert.
func TestShellQuoteRoundTrips(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, s := range []string{"", "'", "''", `'\''`, "a'b", "$(id) `id` ${HOME}", "line\nbreak", `back\slash\`, "é ✓ \t", "-c"} {
		out, err := exec.Command(bash, "-c", "printf %s "+display.SingleQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("%q came back as %q (%v)", s, out, err)
		}
	}
}

func TestWrapRefusesNUL(t *testing.T) {
	t.Parallel()
	if _, err := (jailer{exe: "/s", root: "/p"}).Wrap("echo a\x00b", "/p"); err == nil {
		t.Fatal("a NUL byte was wrapped")
	}
}

// The fresh-shell form (Gemini CLI) is the same jail's command line with
// the script as its one quoted word: run by bash, the jail gets the same
// options as the other form and the script runs byte for byte; nothing
// outside the quotes is a substitution (Gemini CLI refuses those).
func TestWrapFreshRunsTheScriptAsItCame(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	fake := filepath.Join(t.TempDir(), "sandbox")
	prog := "#!" + bash + "\nwhile [ \"$1\" != -- ]; do printf '[%s]' \"$1\"; shift; done; echo; shift; exec \"$@\"\n"
	if err := os.WriteFile(fake, []byte(prog), 0o755); err != nil {
		t.Fatal(err)
	}
	j := jailer{exe: fake, root: "/the project", degraded: []string{"cgroup"}}
	script := `echo "it's" '$(id)' "a\\b"; printf '%s\n' "'\''"; exit 7`
	fresh, err := j.WrapFresh(script)
	if err != nil {
		t.Fatal(err)
	}
	wantPrefix := display.SingleQuote(fake) + " run --quiet --shared-tmp --dir '/the project' --allow-degraded 'cgroup' -- bash -c '"
	if !strings.HasPrefix(fresh, wantPrefix) {
		t.Fatalf("fresh form %q", fresh)
	}
	if cwdForm, _ := j.Wrap(script, "/"); !strings.Contains(cwdForm, strings.TrimSuffix(wantPrefix, " -- bash -c '")+" --cwd-fd 3 -- bash -c ") {
		t.Errorf("the two forms start different jails:\n%s\n%s", fresh, cwdForm)
	}
	want, _ := exec.Command(bash, "-c", script).CombinedOutput()
	got, err := exec.Command(bash, "-c", fresh).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Errorf("exit status %v, want 7", err)
	}
	if opts := "[run][--quiet][--shared-tmp][--dir][/the project][--allow-degraded][cgroup]\n"; string(got) != opts+string(want) {
		t.Errorf("ran %q, want %q", got, opts+string(want))
	}
	if _, err := j.WrapFresh("a\x00b"); err == nil {
		t.Error("a NUL byte was wrapped")
	}
}

// What `sandbox init` and `sandbox doctor` recorded decides whether the
// hook jails allowed commands, and the session brief says which it is.
func TestJailProbeDecidesTheRewrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		probe    *userstate.JailProbe // nil: never probed
		exe      string
		state    hook.JailState
		contains string // in the jailed command; "" when none
		brief    string
	}{
		{"never probed", nil, "/bin/sandbox", hook.JailWraps, "'/bin/sandbox' run --quiet", "run inside the project jail"},
		{"works", &userstate.JailProbe{OK: true}, "/bin/sandbox", hook.JailWraps, "--cwd-fd 3 -- bash -c", "run inside the project jail"},
		{"degraded layers accepted", &userstate.JailProbe{OK: true, Degraded: []string{"cgroup", "seccomp"}}, "/bin/sandbox", hook.JailWraps, "--allow-degraded 'cgroup,seccomp'", "run inside the project jail"},
		{"cannot be built", &userstate.JailProbe{Why: "missing landlock"}, "/bin/sandbox", hook.JailUnavailable, "", "cannot be built on this machine"},
		{"agent cannot rewrite", &userstate.JailProbe{OK: true}, "", hook.JailUnknown, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, st := project(t)
			if tc.probe != nil {
				if err := st.WriteJailProbe(*tc.probe); err != nil {
					t.Fatal(err)
				}
			}
			core, err := Open(context.Background(), dir, Options{Agent: "claude", Classify: true, Exe: tc.exe, State: st})
			if err != nil {
				t.Fatal(err)
			}
			defer core.Close()
			if core.JailState != tc.state {
				t.Errorf("jail state %v, want %v", core.JailState, tc.state)
			}
			out, err := core.PreToolUse(context.Background(), gitStatus(dir))
			if err != nil || out.Verdict != hook.Allow {
				t.Fatalf("%+v %v", out, err)
			}
			if tc.contains == "" && out.Jailed != "" || !strings.Contains(out.Jailed, tc.contains) {
				t.Errorf("jailed command %q, want one with %q", out.Jailed, tc.contains)
			}
			brief := core.Brief(hook.BriefOptions{})
			if tc.brief != "" && !strings.Contains(brief, tc.brief) || tc.brief == "" && strings.Contains(brief, "jail") {
				t.Errorf("brief:\n%s", brief)
			}
		})
	}
}

// A corrupt probe record fails closed rather than guessing.
func TestJailProbeUnreadableRefuses(t *testing.T) {
	t.Parallel()
	dir, st := project(t)
	os.WriteFile(filepath.Join(st.Dir, "jail-probe"), []byte("maybe\n"), 0o600)
	if _, err := Open(context.Background(), dir, Options{Agent: "claude", Classify: true, Exe: "/bin/sandbox", State: st}); err == nil {
		t.Fatal("an unreadable probe record was taken for an answer")
	}
}

// Inside the jail the hook decides with the supervisor's policy cache and
// without one escalates (never refuses) every call but the built-in
// denials; it keeps no audit log and no originals (both need what the
// jail hides or cannot write).
func TestInsideDecidesWithTheCache(t *testing.T) {
	t.Parallel()
	f, _ := testenv.Project(t)
	log := slog.New(slog.DiscardHandler)
	core, err := openInside(f, Options{Classify: true}, log)
	if err != nil {
		t.Fatal(err)
	}
	if d := core.Classify(gitStatus(f.Root)); d.Decision != policy.Escalate {
		t.Errorf("without a cache: %v, want escalate", d.Decision)
	}
	p, err := policy.Parse("policy.yaml", policy.DefaultYAML())
	if err != nil {
		t.Fatal(err)
	}
	if err := shims.WriteCache(f.Shims(), p); err != nil {
		t.Fatal(err)
	}
	core, err = openInside(f, Options{Classify: true}, log)
	if err != nil {
		t.Fatal(err)
	}
	if d := core.Classify(gitStatus(f.Root)); d.Decision != policy.Allow {
		t.Errorf("with the cache: %v, want allow", d.Decision)
	}
	if core.Audit != nil || core.Originals != nil || core.Jail != nil || core.JailState != hook.JailInside {
		t.Errorf("inside core: %+v", core)
	}
}

// A folder set up before the probe was recorded: the hook probes once and
// records the answer for the next calls.
func TestMissingJailProbeIsProbedOnce(t *testing.T) {
	t.Parallel()
	dir, st := project(t)
	probes := 0
	probe := func() userstate.JailProbe { probes++; return userstate.JailProbe{Why: "missing landlock"} }
	for range 2 {
		core, err := Open(context.Background(), dir, Options{Agent: "claude", Classify: true, Exe: "/bin/sandbox", ProbeJail: probe, State: st})
		if err != nil {
			t.Fatal(err)
		}
		if core.JailState != hook.JailUnavailable || core.Jail != nil {
			t.Errorf("state %v jail %v", core.JailState, core.Jail)
		}
		core.Close()
	}
	if probes != 1 {
		t.Errorf("probed %d times, want once", probes)
	}
}
