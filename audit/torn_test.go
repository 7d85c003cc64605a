package audit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// appendRaw appends b to the live file as a crashed writer would have.
func (e env) appendRaw(t *testing.T, b []byte) {
	t.Helper()
	f, err := os.OpenFile(e.logPath(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func TestTornTail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		tear    func(t *testing.T, e env)
		torn    bool // Report.TornTail
		ok      bool
		warning bool
	}{
		{"partial line after the anchored head", func(t *testing.T, e env) {
			e.appendRaw(t, []byte(`{"seq":11,"time":"2025-01-`))
		}, true, true, true},
		{"last record lost only its newline", func(t *testing.T, e env) {
			l := e.open(t)
			l.Append(testEntry(11))
			l.Close()
			data, _ := os.ReadFile(e.logPath())
			os.WriteFile(e.logPath(), data[:len(data)-1], 0o600)
		}, false, true, true},
		{"anchored record itself torn", func(t *testing.T, e env) {
			data, _ := os.ReadFile(e.logPath())
			os.WriteFile(e.logPath(), data[:len(data)-40], 0o600)
		}, true, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.appendN(t, 10)
			tc.tear(t, e)
			rep := e.verify(t)
			if rep.OK != tc.ok || rep.TornTail != tc.torn || (len(rep.Warnings) > 0) != tc.warning {
				t.Fatalf("report ok=%v torn=%v warnings=%v problems=%v", rep.OK, rep.TornTail, rep.Warnings, rep.Problems)
			}
			if !tc.ok && rep.FirstBad.Kind != KindTruncated {
				t.Fatalf("first bad = %v", rep.FirstBad)
			}
			t.Log(rep.Warnings, rep.Problems)
		})
	}
}

// The next appender keeps a torn line as evidence, records it, and the log
// verifies with a warning; forging such a line without the record fails.
func TestTornLineRecovered(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.appendN(t, 10)
	e.appendRaw(t, []byte(`{"seq":11,"time":"2025-01-`))
	e.appendN(t, 2)
	rep := e.mustVerifyOK(t)
	if rep.TornTail || len(rep.Warnings) != 1 || rep.Warnings[0].Kind != KindTorn || rep.Warnings[0].Line != 11 {
		t.Fatalf("warnings %v", rep.Warnings)
	}
	if rep.Records != 13 || rep.Head.Seq != 13 {
		t.Fatalf("records %d head %d", rep.Records, rep.Head.Seq)
	}
	lines := e.lines(t)
	lines[10] = []byte(`{"seq":11,"time":"2025-02-`) // same size, other bytes
	e.writeLines(t, lines)
	if rep := e.verify(t); rep.OK || rep.FirstBad.Kind != KindMalformed || rep.FirstBad.Line != 11 {
		t.Fatalf("first bad %v", rep.FirstBad)
	}
}

func TestMissingNewlineRepaired(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.appendN(t, 3)
	data, _ := os.ReadFile(e.logPath())
	os.WriteFile(e.logPath(), data[:len(data)-1], 0o600)
	e.appendN(t, 1)
	if rep := e.mustVerifyOK(t); len(rep.Warnings) != 0 || rep.Records != 4 {
		t.Fatalf("report %+v", rep)
	}
}

// kill -9 of an appending process: whatever moment it dies at, the log
// verifies (a torn tail is a warning), and the next process continues it.
func TestKilledAppender(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.appendN(t, 1)
	for round := range 3 {
		before := len(e.lines(t))
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(append(os.Environ(), testenv.StateEnv(e.st)...), childEnv+"=loop", rootEnv+"="+e.f.Root)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		testenv.WaitFor(t, fmt.Sprintf("%d lines in the log", before+50), func() bool {
			data, err := os.ReadFile(e.logPath())
			return err == nil && bytes.Count(data, []byte{'\n'}) >= before+50
		})
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		rep := e.verify(t)
		if !rep.OK {
			t.Fatalf("round %d: %v (%v); child stderr %s", round, rep.FirstBad, rep.Problems, stderr.String())
		}
		e.appendN(t, 1)
		rep = e.mustVerifyOK(t)
		t.Logf("round %d: %d records, warnings %v", round, rep.Records, rep.Warnings)
	}
}
