package audit

import (
	"bytes"
	"context"
	"testing"
)

// A copy of the log, verified from its lines without the key: intact, it
// checks out; with a record removed, inserted twice or changed, or not
// starting at seq 1, it does not, and says where.
func TestVerifyChain(t *testing.T) {
	e := newEnv(t)
	f, st := e.f, e.st
	l := e.open(t)
	for _, ev := range []string{"a", "b", "c", "d"} {
		if _, err := l.Append(Entry{Actor: "test", Event: ev}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	var lines [][]byte
	if err := Read(context.Background(), f, st, 0, func(r Record) error { lines = append(lines, r.Line); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	if rep := VerifyChain("copy", lines, nil); !rep.OK || rep.Records != 4 || rep.Head.Seq != 4 {
		t.Fatalf("intact copy: %+v", rep)
	}
	if rep := VerifyChain("copy", lines, st.Key); !rep.OK {
		t.Fatalf("intact copy with the key: %+v", rep)
	}
	cases := map[string][][]byte{
		"removed":      {lines[0], lines[1], lines[3]},
		"repeated":     {lines[0], lines[1], lines[1], lines[2], lines[3]},
		"changed":      {lines[0], bytes.Replace(lines[1], []byte(`"event":"b"`), []byte(`"event":"x"`), 1), lines[2], lines[3]},
		"not from one": {lines[1], lines[2], lines[3]},
		"not a record": {lines[0], []byte("junk"), lines[1], lines[2], lines[3]},
	}
	for name, c := range cases {
		if rep := VerifyChain("copy", c, nil); rep.OK || rep.FirstBad == nil {
			t.Errorf("%s: verified OK: %+v", name, rep)
		}
	}
}
