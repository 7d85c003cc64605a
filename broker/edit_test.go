//go:build unix

package broker_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/broker"
)

func TestApplyEditsSemantics(t *testing.T) {
	type E = broker.Edit
	const file = "alpha beta\ngamma beta\ndelta\n"
	tests := []struct {
		name  string
		edits []E
		want  string // the new content; file unchanged when err is set
		err   error
	}{
		{"unique match", []E{{Old: "delta", New: "DELTA"}}, "alpha beta\ngamma beta\nDELTA\n", nil},
		{"not found", []E{{Old: "omega", New: "x"}}, "", broker.ErrOldNotFound},
		{"ambiguous", []E{{Old: "beta", New: "x"}}, "", broker.ErrAmbiguous},
		{"replace_all", []E{{Old: "beta", New: "B", ReplaceAll: true}}, "alpha B\ngamma B\ndelta\n", nil},
		{"replace_all needs a match", []E{{Old: "omega", New: "x", ReplaceAll: true}}, "", broker.ErrOldNotFound},
		{"old equals new", []E{{Old: "delta", New: "delta"}}, "", broker.ErrNoChange},
		{"empty old", []E{{Old: "", New: "x"}}, "", broker.ErrEmptyOld},
		{"no edits", nil, "", broker.ErrNoEdits},
		{"sequential: second sees the first's result",
			[]E{{Old: "delta", New: "epsilon"}, {Old: "epsilon\n", New: "zeta\n"}}, "alpha beta\ngamma beta\nzeta\n", nil},
		{"sequential: first makes the second unique",
			[]E{{Old: "alpha beta", New: "alpha"}, {Old: "beta", New: "BETA"}}, "alpha\ngamma BETA\ndelta\n", nil},
		{"sequential: first removes what the second needs",
			[]E{{Old: "delta", New: "x"}, {Old: "delta", New: "y"}}, "", broker.ErrOldNotFound},
		{"a failing later edit applies nothing",
			[]E{{Old: "alpha", New: "A"}, {Old: "beta", New: "x"}}, "", broker.ErrAmbiguous},
		{"multi-line old", []E{{Old: "beta\ngamma", New: "B\nG"}}, "alpha B\nG beta\ndelta\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, "f.txt")
			writeFile(t, path, file, 0o640)
			wo, err := broker.ApplyEdits(root, path, tc.edits)
			got, _ := os.ReadFile(path)
			if tc.err != nil {
				if !errors.Is(err, tc.err) || string(got) != file {
					t.Fatalf("err %v (want %v), file now %q", err, tc.err, got)
				}
				noTemps(t, root)
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("err %v, file %q, want %q", err, got, tc.want)
			}
			fi, _ := os.Stat(path)
			if wo.SHA256 != sha(got) || wo.Size != int64(len(got)) || wo.Created || fi.Mode() != 0o640 {
				t.Errorf("outcome %+v, mode %v", wo, fi.Mode())
			}
			noTemps(t, root)
		})
	}
}

func TestApplyEditsRefuses(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret")
	writeFile(t, outside, "token=abc", 0o600)
	if err := os.Link(outside, filepath.Join(root, "hard")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       error
	}{
		{"missing file", "nope.txt", broker.ErrNoFile},
		{"missing directory", "no/such/f.txt", os.ErrNotExist},
		{"hard link to a file outside", "hard", broker.ErrHardLink},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := broker.ApplyEdits(root, tc.path, []broker.Edit{{Old: "abc", New: "pwned"}})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
	if b, _ := os.ReadFile(outside); string(b) != "token=abc" {
		t.Errorf("outside file now %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "no")); err == nil {
		t.Error("an edit created directories")
	}
}
