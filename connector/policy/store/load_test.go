package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/textdiff"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

func writePolicy(t *testing.T, f folder.Folder, src string) {
	t.Helper()
	mustWrite(t, f.Policy(), src)
}

func load(t *testing.T, f folder.Folder, st *userstate.State) (*policy.Engine, []Warning) {
	t.Helper()
	e, warns, err := Load(f, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e, warns
}

func hasWarning(ws []Warning, code string) bool {
	for _, w := range ws {
		if w.Code == code {
			return true
		}
	}
	return false
}

const (
	polA = "version: 1\nwrite: {allow: ['**']}\n"
	polB = "version: 1\nwrite: {allow: ['**', '/**']}\n" // allows more
)

func TestLoadAcceptedFlow(t *testing.T) {
	f, st := project(t)
	writePolicy(t, f, polA)

	e, warns := load(t, f, st)
	if e.Status() != policy.StatusNothingAccepted || !hasWarning(warns, WarnNotAccepted) {
		t.Fatalf("before accept: %v %v", e.Status(), warns)
	}
	if d := e.Write("a.go", ""); d.Decision != policy.Escalate {
		t.Errorf("nothing accepted but write allowed")
	}

	if err := Accept(f, st, []byte(polA)); err != nil {
		t.Fatal(err)
	}
	e, warns = load(t, f, st)
	if e.Status() != policy.StatusAccepted || len(warns) != 0 {
		t.Fatalf("after accept: %v %v", e.Status(), warns)
	}
	if d := e.Write("a.go", ""); d.Decision != policy.Allow {
		t.Errorf("accepted policy not enforced: %v", d.Decision)
	}

	// An edit that allows more is pending: the accepted policy stays.
	writePolicy(t, f, polB)
	e, warns = load(t, f, st)
	if e.Status() != policy.StatusPending || !hasWarning(warns, WarnPending) {
		t.Fatalf("after edit: %v %v", e.Status(), warns)
	}
	if d := e.Write("/tmp/x", ""); d.Decision != policy.Escalate {
		t.Errorf("pending change enforced: %v", d.Decision)
	}
	cur, acc, changed, err := Pending(f, st)
	if err != nil || !changed || string(cur) != polB || string(acc) != polA {
		t.Errorf("Pending = %q %q %v %v", cur, acc, changed, err)
	}
	if diff := textdiff.UnifiedDiff("accepted", "policy.yaml", acc, cur); !strings.Contains(diff, "+write: {allow: ['**', '/**']}") {
		t.Errorf("diff:\n%s", diff)
	}

	// A broken file: error with file:line, the accepted policy stays.
	writePolicy(t, f, "version: 1\nwrite: {allow: ['**'], bogus: 1}\n")
	e, warns = load(t, f, st)
	if e.Status() != policy.StatusPending || !hasWarning(warns, WarnInvalid) {
		t.Fatalf("after break: %v %v", e.Status(), warns)
	}
	if !strings.Contains(warns[0].Message, "policy.yaml:2:") {
		t.Errorf("warning without file:line: %q", warns[0].Message)
	}
	if d := e.Write("a.go", ""); d.Decision != policy.Allow {
		t.Errorf("accepted policy lost after a broken edit: %v", d.Decision)
	}
	if err := Accept(f, st, []byte("version: 1\nbogus: 1\n")); !errors.Is(err, policy.ErrInvalidPolicy) {
		t.Errorf("Accept of a broken file: %v", err)
	}

	// A missing file: the accepted policy stays.
	if err := os.Remove(f.Policy()); err != nil {
		t.Fatal(err)
	}
	e, warns = load(t, f, st)
	if e.Status() != policy.StatusPending || !hasWarning(warns, WarnMissing) || e.Write("a.go", "").Decision != policy.Allow {
		t.Errorf("after removal: %v %v", e.Status(), warns)
	}
}

func TestLoadTamperedRecord(t *testing.T) {
	f, st := project(t)
	writePolicy(t, f, polA)
	if err := Accept(f, st, []byte(polA)); err != nil {
		t.Fatal(err)
	}
	dir, _ := st.FolderDir(f.Root)
	tests := []struct {
		name   string
		tamper func(t *testing.T)
	}{
		{"copy swapped", func(t *testing.T) { mustWrite(t, filepath.Join(dir, acceptedCopyName), polB) }},
		{"record hash swapped", func(t *testing.T) {
			rec, _ := os.ReadFile(filepath.Join(dir, acceptedRecordName))
			s := strings.Replace(string(rec), sha256Hex([]byte(polA)), sha256Hex([]byte(polB)), 1)
			mustWrite(t, filepath.Join(dir, acceptedRecordName), s)
			mustWrite(t, filepath.Join(dir, acceptedCopyName), polB)
			writePolicy(t, f, polB)
		}},
		{"record garbage", func(t *testing.T) { mustWrite(t, filepath.Join(dir, acceptedRecordName), "{") }},
		{"other key", func(t *testing.T) { st.Key = make([]byte, 32) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := Accept(f, st, []byte(polA)); err != nil {
				t.Fatal(err)
			}
			writePolicy(t, f, polA)
			key := st.Key
			t.Cleanup(func() { st.Key = key })
			tc.tamper(t)
			e, warns := load(t, f, st)
			if e.Status() != policy.StatusNothingAccepted || !hasWarning(warns, WarnBadRecord) {
				t.Errorf("status %v warnings %v", e.Status(), warns)
			}
			if d := e.Write("/tmp/x", ""); d.Decision != policy.Escalate {
				t.Errorf("tampered record allowed more: %v", d.Decision)
			}
		})
	}
}

func TestAcceptedRecordIsPerFolder(t *testing.T) {
	f, st := project(t)
	other := filepath.Join(filepath.Dir(f.Root), "other")
	if err := os.MkdirAll(filepath.Join(other, ".sandbox"), 0o700); err != nil {
		t.Fatal(err)
	}
	g, _ := folder.New(other)
	if err := Accept(f, st, []byte(polB)); err != nil {
		t.Fatal(err)
	}
	// Copy f's record into g's state dir: it names f's root, so it fails.
	fd, _ := st.FolderDir(f.Root)
	gd, _ := st.FolderDir(g.Root)
	for _, n := range []string{acceptedCopyName, acceptedRecordName} {
		b, _ := os.ReadFile(filepath.Join(fd, n))
		mustWrite(t, filepath.Join(gd, n), string(b))
	}
	writePolicy(t, g, polB)
	if _, err := Accepted(g, st); !errors.Is(err, ErrBadRecord) {
		t.Errorf("record copied from another folder: %v", err)
	}
}

func TestRemembered(t *testing.T) {
	f, st := project(t)
	writePolicy(t, f, string(policy.DefaultYAML()))
	if err := Accept(f, st, policy.DefaultYAML()); err != nil {
		t.Fatal(err)
	}
	for _, r := range []policy.Remembered{
		{Trigger: policy.Shell, Tier: policy.Allow, Pattern: "git push origin *", By: "u@h"},
		{Trigger: policy.Shell, Tier: policy.Allow, Pattern: "rm -rf / **"}, // cannot lift a deny
		{Trigger: policy.Shell, Tier: policy.Deny, Pattern: "git status --porcelain"},
		{Trigger: policy.Network, Tier: policy.Allow, Pattern: "proxy.golang.org:443"},
		{Trigger: policy.Write, Tier: policy.Allow, Pattern: ".sandbox/**"}, // cannot lift self-protection
	} {
		if err := Remember(f, st, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := Remember(f, st, policy.Remembered{Trigger: policy.Shell, Tier: policy.Escalate, Pattern: "x"}); err == nil {
		t.Error("remembered an escalate")
	}
	if err := Remember(f, st, policy.Remembered{Trigger: policy.Shell, Tier: policy.Allow, Pattern: "** x"}); err == nil {
		t.Error("remembered a bad pattern")
	}
	e, warns := load(t, f, st)
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	tests := []struct {
		name string
		d    policy.Decision
		want policy.Tier
	}{
		{"remembered allow", e.Argv([]string{"git", "push", "origin", "main"}, ""), policy.Allow},
		{"not covered", e.Argv([]string{"git", "push", "upstream", "main"}, ""), policy.Escalate},
		{"deny stays", e.Argv([]string{"rm", "-rf", "/"}, ""), policy.Deny},
		{"remembered deny", e.Argv([]string{"git", "status", "--porcelain"}, ""), policy.Deny},
		{"network", e.Network("proxy.golang.org:443"), policy.Allow},
		{"self-protection stays", e.Write(".sandbox/x", ""), policy.Deny},
	}
	for _, tc := range tests {
		if tc.d.Decision != tc.want {
			t.Errorf("%s: %v, want %v\n%s", tc.name, tc.d.Decision, tc.want, dump(tc.d))
		}
	}

	// Tamper: change a pattern without re-signing.
	path, _ := rememberedPath(f, st)
	b, _ := os.ReadFile(path)
	mustWrite(t, path, strings.Replace(string(b), "git push origin *", "git push **", 1))
	e, warns = load(t, f, st)
	if !hasWarning(warns, WarnBadRemembered) {
		t.Errorf("tampered entry not reported: %v", warns)
	}
	if d := e.Argv([]string{"git", "push", "upstream"}, ""); d.Decision != policy.Escalate {
		t.Errorf("tampered entry applied: %v", d.Decision)
	}
	mustWrite(t, path, "not json")
	if _, warns = load(t, f, st); !hasWarning(warns, WarnRememberedFile) {
		t.Errorf("garbage file not reported: %v", warns)
	}
}

func TestRememberConcurrent(t *testing.T) {
	f, st := project(t)
	const n = 16
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			errs <- Remember(f, st, policy.Remembered{Trigger: policy.Shell, Tier: policy.Allow, Pattern: fmt.Sprintf("tool%d **", i)})
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got, warns := LoadRemembered(f, st)
	if len(got) != n || len(warns) != 0 {
		t.Errorf("%d entries (want %d), warnings %v", len(got), n, warns)
	}
}
