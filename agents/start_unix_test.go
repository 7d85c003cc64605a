//go:build unix

package agents

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// fakeSupervisorVar makes this test binary, started as a supervisor
// (argv[0] "sandbox"), a supervisor that waits at its gate, records the
// agent as running and tells its spawn on StartedFD, or (with "exit")
// records nothing and exits.
const fakeSupervisorVar = "AGENTS_TEST_FAKE_SUPERVISOR"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeSupervisorVar); mode != "" && filepath.Base(os.Args[0]) == "sandbox" {
		os.Exit(fakeSupervisor(mode))
	}
	os.Exit(m.Run())
}

func fakeSupervisor(mode string) int {
	// sandbox agents supervise --dir MAIN NAME
	main, name := os.Args[4], os.Args[5]
	r, err := Open(folder.Folder{Root: main}, os.Getenv("XDG_STATE_HOME"))
	if err != nil {
		return 2
	}
	started := InheritedStarted()
	if started == nil || AwaitGate() != nil {
		return 3
	}
	if mode == "exit" {
		return 0
	}
	if _, err := r.Update(name, func(rec *Record) { rec.State = Running }); err != nil {
		return 4
	}
	(&supervisor{o: SuperviseOptions{Started: started}}).tell()
	time.Sleep(time.Minute) // the test kills it
	return 0
}

// proceed returns when the supervisor tells it, not at its next look at
// the record (here never: the looks are an hour apart), and when the
// supervisor exits without a word.
func TestProceedIsToldOfTheStart(t *testing.T) {
	old := recordLook
	recordLook = time.Hour
	t.Cleanup(func() { recordLook = old })
	for _, mode := range []string{"run", "exit"} {
		t.Run(mode, func(t *testing.T) {
			state := t.TempDir()
			t.Setenv("XDG_STATE_HOME", state)
			t.Setenv(fakeSupervisorVar, mode)
			r, err := Open(folder.Folder{Root: t.TempDir()}, state)
			if err != nil {
				t.Fatal(err)
			}
			lock, err := r.Lock("a")
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Release()
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			p, err := r.launchSupervisor("a", lock, exe)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(p.pid, syscall.SIGKILL) })
			if err := r.Put(Record{Name: "a", State: Starting, PID: p.pid}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			rec, err := p.proceed(ctx)
			want := Running
			if mode == "exit" {
				want = Failed
			}
			if err != nil || rec.State != want {
				t.Fatalf("proceed: %s, %v; want %s", rec.State, err, want)
			}
		})
	}
}
