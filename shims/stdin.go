package shims

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"
)

// Standard input of an escalated command: forwarded only when it is
// small and complete, since the human must see it and the broker feeds it
// whole.
const (
	// MaxStdin is the most standard input an escalated command receives.
	MaxStdin = 1 << 20
	// stdinWait bounds the wait for the end of piped input.
	stdinWait = 2 * time.Second
)

// captureStdin reads standard input for an escalated command: nothing
// from a terminal; all of it when it ends within MaxStdin bytes (and, for
// a pipe, within stdinWait); otherwise nothing, and note says why. Bytes
// read from input that is then not forwarded are lost, as they would be
// to a command that ignored its input.
func captureStdin(f *os.File) (data []byte, note string) {
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, ""
	case isTerminal(f):
		return nil, "standard input is a terminal, so the approved command will run without it"
	case fi.Mode().IsRegular():
		return readAll(f)
	}
	done := make(chan struct{})
	var b []byte
	var n string
	go func() {
		defer close(done)
		b, n = readAll(f)
	}()
	timer := time.NewTimer(stdinWait)
	defer timer.Stop()
	select {
	case <-done:
		return b, n
	case <-timer.C:
		return nil, fmt.Sprintf("standard input did not end within %s, so the approved command will run without it", stdinWait)
	}
}

// readAll reads r to its end if that comes within MaxStdin bytes.
func readAll(r io.Reader) ([]byte, string) {
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, MaxStdin+1))
	switch {
	case err != nil:
		return nil, fmt.Sprintf("standard input could not be read (%v), so the approved command will run without it", err)
	case n > MaxStdin:
		return nil, fmt.Sprintf("standard input is larger than %d bytes, so the approved command will run without it", MaxStdin)
	case n == 0:
		return nil, ""
	}
	return buf.Bytes(), ""
}
