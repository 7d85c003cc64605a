//go:build linux

package jail_linux

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// TestOutputNotHeldByBackground: a jail without a pid namespace whose
// command leaves a background process holding its output (a buffer, not
// a file) ends when the command does: the background process dies with
// the cgroup, and everything written before is in the buffer.
func TestOutputNotHeldByBackground(t *testing.T) {
	j, _ := v2Jail(t, "/sandbox-test-out-"+strconv.Itoa(os.Getpid()))
	var out bytes.Buffer
	spec := &jailspec.Spec{
		Argv:    []string{"/bin/sh", "-c", "sleep 60 & echo out; echo err >&2"},
		Env:     []string{"PATH=/usr/bin:/bin"},
		Dir:     "/",
		Stdout:  &out,
		Stderr:  &out, // one pipe for both, as os/exec does
		Enforce: jailspec.Enforce{Cgroup: true, Seccomp: true, NoNewPrivs: true},
	}
	p, err := j.Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var st jailspec.ExitStatus
	go func() {
		defer close(done)
		st, err = p.Wait(context.Background())
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = p.Kill()
		t.Fatal("the run waited for the background process that holds its output")
	}
	if err != nil || st.Code != 0 {
		t.Fatalf("status %+v %v", st, err)
	}
	if got := out.String(); !strings.Contains(got, "out\n") || !strings.Contains(got, "err\n") {
		t.Errorf("output %q", got)
	}
}
