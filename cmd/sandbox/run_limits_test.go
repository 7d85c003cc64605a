package main

import (
	"os"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher"
)

// TestRunLimitsFromPolicy: `sandbox run` takes each limit the flags leave
// unset from the folder's accepted policy; a flag wins; a pending,
// unaccepted change to the limits does not count.
func TestRunLimitsFromPolicy(t *testing.T) {
	f, st := testenv.Project(t)
	testenv.UseState(t, st)
	data := append(policy.DefaultYAML(), []byte("\nlimits: {memory: 1GiB, pids: 300, cpu: 150%}\n")...)
	os.WriteFile(f.Policy(), data, 0o644)
	if err := store.Accept(f, st, data); err != nil {
		t.Fatal(err)
	}
	got, err := launcher.PolicyLimits(load(t, f), launcher.Limits{Pids: 64})
	if err != nil {
		t.Fatal(err)
	}
	if want := (launcher.Limits{MemoryBytes: 1 << 30, Pids: 64, CPUs: 1.5}); got != want {
		t.Errorf("limits %+v, want %+v", got, want)
	}
	os.WriteFile(f.Policy(), append(data, []byte("# pending\nlimits: {pids: 5}\n")...), 0o644)
	if got, err := launcher.PolicyLimits(load(t, f), launcher.Limits{}); err != nil || got.Pids != 300 {
		t.Errorf("with a pending change: %+v %v, want the accepted pids 300", got, err)
	}
}

// TestRunLimitsWithoutPolicy: no accepted policy, no limits added.
func TestRunLimitsWithoutPolicy(t *testing.T) {
	f, st := testenv.Project(t)
	testenv.UseState(t, st)
	for _, eng := range []*policy.Engine{nil, load(t, f)} {
		if got, err := launcher.PolicyLimits(eng, launcher.Limits{}); err != nil || got != (launcher.Limits{}) {
			t.Errorf("limits %+v %v, want none", got, err)
		}
	}
}

func load(t *testing.T, f folder.Folder) *policy.Engine {
	t.Helper()
	st, err := userstate.Open(false)
	if err != nil {
		t.Fatal(err)
	}
	eng, _, err := store.Load(f, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	return eng
}
