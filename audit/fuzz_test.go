package audit

import (
	"bytes"
	"os"
	"testing"
)

func FuzzParseLine(f *testing.F) {
	e := newEnv(f)
	e.appendN(f, 2)
	for _, l := range e.lines(f) {
		f.Add(l)
	}
	f.Add([]byte(`{"seq":1,"prev":"00","hmac":"00"}`))
	f.Add([]byte(`{"seq":01,`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, ok := parseLine(b)
		if !ok {
			return
		}
		if p.seq == 0 || len(p.prefix)+hmacTail != len(b) || !bytes.HasPrefix(b, []byte(seqPrefix)) {
			t.Fatalf("accepted %q as seq %d", b, p.seq)
		}
	})
}

// Whatever bytes the log holds, Verify does not fail to run, never counts
// a record it cannot authenticate, and never passes a log with a
// complete line that is not an authentic record.
func FuzzVerify(f *testing.F) {
	e := newEnv(f)
	e.appendN(f, 3)
	good, _ := os.ReadFile(e.logPath())
	f.Add(good)
	f.Add([]byte{})
	f.Add(append(bytes.Clone(good), `{"seq":4`...))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newScanner(bytes.Repeat([]byte{1}, 32), nil)
		if err := s.scan(bytes.NewReader(data), int64(len(data)), LiveFile, true); err != nil {
			t.Fatal(err)
		}
		s.finish(true)
		rep := s.rep
		if rep.Records != 0 {
			t.Fatalf("%d records authenticated with another key", rep.Records)
		}
		if rep.OK && bytes.IndexByte(data, '\n') >= 0 {
			t.Fatalf("passed %q: %+v", data, rep)
		}
	})
}
