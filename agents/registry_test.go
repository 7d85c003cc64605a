package agents

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

func newRegistry(t *testing.T) *Registry {
	t.Helper()
	main, err := folder.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(main, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestValidName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"a", true}, {"fix-login", true}, {"v1.2_x", true}, {strings.Repeat("a", 63), true},
		{"", false}, {"A", false}, {"-x", false}, {".x", false}, {"_x", false}, {"a..b", false},
		{"a.", false}, {"a.lock", false}, {"a/b", false}, {"a b", false}, {"a~1", false},
		{"a^", false}, {"a:b", false}, {"a@{1}", false}, {strings.Repeat("a", 64), false},
		{"..", false}, {"é", false}, {"a\\b", false}, {"a\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidName(tc.name)
			if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrBadName) {
				t.Errorf("ValidName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
			}
		})
	}
}

func TestRegistryRoundTrip(t *testing.T) {
	t.Parallel()
	r := newRegistry(t)
	code := 3
	for _, rec := range []Record{
		{Name: "b", Agent: "command", Argv: []string{"sh"}, State: Failed, Exit: &code, Created: time.Unix(5, 0).UTC()},
		{Name: "a", Agent: "claude", Argv: []string{"claude"}, State: Done, Branch: "sandbox/a", Created: time.Unix(6, 0).UTC()},
	} {
		if err := r.Put(rec); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := r.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Name != "a" || recs[1].Name != "b" || *recs[1].Exit != 3 || recs[0].Branch != "sandbox/a" {
		t.Fatalf("List = %+v", recs)
	}
	if _, err := r.Get("zz"); !errors.Is(err, ErrNoAgent) {
		t.Errorf("Get(zz) = %v, want ErrNoAgent", err)
	}
	if _, err := r.Get("../x"); !errors.Is(err, ErrBadName) {
		t.Errorf("Get(../x) = %v, want ErrBadName", err)
	}
	fi, err := os.Stat(r.RecordPath("a"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("record mode: %v %v", fi, err)
	}
}

// A running record whose lock nobody holds (its supervisor died) reads as
// stopped; with the lock held it reads as written.
func TestRegistryStoppedWithoutSupervisor(t *testing.T) {
	t.Parallel()
	r := newRegistry(t)
	if err := r.Put(Record{Name: "x", State: Running, PID: 999999}); err != nil {
		t.Fatal(err)
	}
	if rec, _ := r.Get("x"); rec.State != Stopped {
		t.Errorf("state without a holder = %s, want stopped", rec.State)
	}
	l, err := r.Lock("x")
	if err != nil {
		t.Fatal(err)
	}
	if rec, _ := r.Get("x"); rec.State != Running {
		t.Errorf("state with the lock held = %s, want running", rec.State)
	}
	if _, err := r.Lock("x"); !errors.Is(err, ErrBusy) {
		t.Errorf("second Lock = %v, want ErrBusy", err)
	}
	l.Release()
	if rec, _ := r.Get("x"); rec.State != Stopped {
		t.Errorf("state after release = %s, want stopped", rec.State)
	}
	l2, err := r.Lock("x")
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	l2.Release()
}

func TestRegistryBadRecord(t *testing.T) {
	t.Parallel()
	r := newRegistry(t)
	if err := r.Put(Record{Name: "good", State: Done}); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"junk": "{not json", "other": `{"name":"good"}`} {
		if err := os.MkdirAll(r.AgentDir(name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(r.RecordPath(name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(r.Dir, "empty"), 0o700) // a spawn that did not get far
	recs, err := r.List()
	if !errors.Is(err, ErrBadRecord) || len(recs) != 1 || recs[0].Name != "good" {
		t.Errorf("List = %v, %v; want good alone and ErrBadRecord", recs, err)
	}
}

func TestRegistryPathsUpdateRemove(t *testing.T) {
	t.Parallel()
	r := newRegistry(t)
	if got, want := r.Worktree("x"), filepath.Join(r.Main.Root, ".sandbox", "worktrees", "x"); got != want {
		t.Errorf("Worktree = %s, want %s", got, want)
	}
	for _, p := range []string{r.LogPath("x"), r.SockPath("x"), r.LockPath("x"), r.RecordPath("x")} {
		if filepath.Dir(p) != r.AgentDir("x") {
			t.Errorf("%s is not in the agent's dir", p)
		}
	}
	if err := r.Put(Record{Name: "x", State: Starting}); err != nil {
		t.Fatal(err)
	}
	l, err := r.Lock("x")
	if err != nil {
		t.Fatal(err)
	}
	// The lock handed over as a file (to the supervisor) keeps holding.
	held := &Lock{f: l.File()}
	if _, err := r.Update("x", func(rec *Record) { rec.State, rec.PID = Running, os.Getpid() }); err != nil {
		t.Fatal(err)
	}
	if rec, _ := r.Get("x"); rec.State != Running || rec.PID != os.Getpid() {
		t.Errorf("after Update: %+v", rec)
	}
	held.Release()
	if err := r.Remove("x"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get("x"); !errors.Is(err, ErrNoAgent) {
		t.Errorf("Get after Remove = %v", err)
	}
	if _, err := r.Update("x", func(*Record) {}); !errors.Is(err, ErrNoAgent) {
		t.Errorf("Update after Remove = %v", err)
	}
}

// FuzzNameChars: the hand-written check is the regular expression it
// replaced.
func FuzzNameChars(f *testing.F) {
	re := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	for _, s := range []string{"a", "fix-login", "-x", strings.Repeat("a", 63), strings.Repeat("a", 64), "a\n", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := nameChars(s), re.MatchString(s); got != want {
			t.Errorf("nameChars(%q) = %v, the expression says %v", s, got, want)
		}
	})
}
