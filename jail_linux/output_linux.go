//go:build linux

package jail_linux

import (
	"io"
	"os"
	"reflect"
	"time"
)

// outputDrain bounds how long the end of a run waits for a jail's output
// after the jail was killed: a descriptor a process outside the cgroup
// still holds (a degraded jail has none to kill it with) must not hang
// the run.
const outputDrain = 2 * time.Second

// output copies what the jail writes to a Stdout or Stderr that is not a
// file. os/exec would copy it too, but its Wait waits for the copy, which
// ends only when every jailed process holding the pipe has exited: a
// background process without a pid namespace would hold the run until it
// exits. With the pipe ours, the run reaps the init, kills the jail, then
// drains the pipe (see process.wait).
type output struct {
	r    *os.File
	done chan struct{}
}

// jailOutput returns the file the jail writes to for dst: dst itself when
// it is a file (or nil), else the write end of a pipe copied to dst.
func jailOutput(dst io.Writer) (w *os.File, o *output, err error) {
	if f, ok := dst.(*os.File); ok || dst == nil {
		return f, nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	o = &output{r: r, done: make(chan struct{})}
	go func() {
		defer close(o.done)
		_, _ = io.Copy(dst, r)
	}()
	return w, o, nil
}

// drain waits for the copy to reach the end of the pipe (every writer
// gone), at most outputDrain, then closes the read end.
func (o *output) drain() {
	select {
	case <-o.done:
	case <-time.After(outputDrain):
	}
	_ = o.r.Close()
	<-o.done
}

// sameWriter reports whether a and b are the same writer (comparing only
// comparable values, as os/exec does).
func sameWriter(a, b io.Writer) bool {
	return a != nil && b != nil && reflect.TypeOf(a) == reflect.TypeOf(b) && reflect.TypeOf(a).Comparable() && a == b
}
