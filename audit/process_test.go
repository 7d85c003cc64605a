package audit

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// Several processes and goroutines append at once: one valid chain with
// every record in it.
func TestConcurrentProcesses(t *testing.T) {
	t.Parallel()
	const procs, perProc, local = 4, 150, 150
	e := newEnv(t)
	var wg sync.WaitGroup
	errs := make(chan string, procs+1)
	for range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(append(os.Environ(), testenv.StateEnv(e.st)...), childEnv+"=append", rootEnv+"="+e.f.Root, countEnv+"="+strconv.Itoa(perProc))
			var out bytes.Buffer
			cmd.Stderr = &out
			if err := cmd.Run(); err != nil {
				errs <- err.Error() + ": " + out.String()
			}
		})
	}
	wg.Go(func() {
		l, err := Open(e.f, e.st)
		if err != nil {
			errs <- err.Error()
			return
		}
		defer l.Close()
		for i := range local {
			if _, err := l.Append(testEntry(i)); err != nil {
				errs <- err.Error()
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Fatal(msg)
	}
	rep := e.mustVerifyOK(t)
	if want := procs*perProc + local; rep.Records != want || rep.Head.Seq != uint64(want) || rep.Anchor.Seq != uint64(want) {
		t.Fatalf("records %d head %d anchor %d, want %d", rep.Records, rep.Head.Seq, rep.Anchor.Seq, want)
	}
}
