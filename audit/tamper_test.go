package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// freshChain writes n records for e's folder into a scratch folder with
// the given key and returns its lines: a valid chain, never anchored here.
func freshChain(t *testing.T, e env, key []byte, n int) [][]byte {
	t.Helper()
	other := newEnv(t)
	st := &userstate.State{Dir: other.st.Dir, Key: key}
	l, err := Open(e.f, st) // same folder root, but the other state dir
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := l.Append(Entry{Actor: "cli", Event: "forged", Detail: map[string]any{"i": i}}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	return env{f: e.f, st: st}.lines(t)
}

func TestTampering(t *testing.T) {
	t.Parallel()
	const n = 20
	cases := []struct {
		name   string
		tamper func(t *testing.T, e env, lines [][]byte) [][]byte
		kind   Kind
		line   int // expected first bad line (0: no line)
	}{
		{"edit a record", func(t *testing.T, e env, l [][]byte) [][]byte {
			l[6] = bytes.Replace(l[6], []byte(`"decision":"escalate"`), []byte(`"decision":"allow"`), 1)
			return l
		}, KindEdited, 7},
		{"edit the seq of a record", func(t *testing.T, e env, l [][]byte) [][]byte {
			l[6] = bytes.Replace(l[6], []byte(`{"seq":7,`), []byte(`{"seq":9,`), 1)
			return l
		}, KindEdited, 7},
		{"delete one", func(t *testing.T, e env, l [][]byte) [][]byte {
			return append(l[:6:6], l[7:]...)
		}, KindDeleted, 7},
		{"delete the first", func(t *testing.T, e env, l [][]byte) [][]byte { return l[1:] }, KindDeleted, 1},
		{"swap two", func(t *testing.T, e env, l [][]byte) [][]byte {
			l[6], l[7] = l[7], l[6]
			return l
		}, KindReordered, 7},
		{"move one later", func(t *testing.T, e env, l [][]byte) [][]byte {
			moved := l[3]
			l = append(l[:3:3], l[4:]...)
			return append(l[:10:10], append([][]byte{moved}, l[10:]...)...)
		}, KindReordered, 4},
		{"truncate the last three", func(t *testing.T, e env, l [][]byte) [][]byte { return l[:n-3] }, KindTruncated, n - 3},
		{"duplicate a record", func(t *testing.T, e env, l [][]byte) [][]byte {
			return append(l[:8:8], append([][]byte{l[7]}, l[8:]...)...)
		}, KindReordered, 9},
		{"insert a line", func(t *testing.T, e env, l [][]byte) [][]byte {
			return append(l[:5:5], append([][]byte{[]byte(`{"seq":6,"junk":true}`)}, l[5:]...)...)
		}, KindMalformed, 6},
		{"upper-case an hmac", func(t *testing.T, e env, l [][]byte) [][]byte {
			l[4] = append(l[4][:len(l[4])-66:len(l[4])-66], bytes.ToUpper(l[4][len(l[4])-66:])...)
			return l
		}, KindMalformed, 5},
		{"blank a line", func(t *testing.T, e env, l [][]byte) [][]byte {
			l[4] = nil
			return l
		}, KindMalformed, 5},
		{"garbage last line", func(t *testing.T, e env, l [][]byte) [][]byte {
			l[n-1] = []byte("garbage")
			return l
		}, KindMalformed, n},
		{"rewrite with another key", func(t *testing.T, e env, l [][]byte) [][]byte {
			return freshChain(t, e, bytes.Repeat([]byte{7}, userstate.KeySize), n)
		}, KindRewritten, 1},
		{"rewrite with the same key, not the anchored chain", func(t *testing.T, e env, l [][]byte) [][]byte {
			return freshChain(t, e, e.st.Key, n)
		}, KindRewritten, n},
		{"rewrite shorter with the same key", func(t *testing.T, e env, l [][]byte) [][]byte {
			return freshChain(t, e, e.st.Key, n-5)
		}, KindTruncated, n - 5},
		{"delete the file", func(t *testing.T, e env, l [][]byte) [][]byte {
			if err := os.Remove(e.logPath()); err != nil {
				t.Fatal(err)
			}
			return nil
		}, KindMissing, 0},
		{"empty the file", func(t *testing.T, e env, l [][]byte) [][]byte { return [][]byte{} }, KindMissing, 0},
		{"forge the anchor", func(t *testing.T, e env, l [][]byte) [][]byte {
			e.editAnchor(t, []byte(`"seq":20`), []byte(`"seq":19`))
			return l
		}, KindAnchor, 0},
		{"delete the anchor", func(t *testing.T, e env, l [][]byte) [][]byte {
			e.editAnchor(t, nil, nil)
			return l
		}, KindAnchor, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.appendN(t, n)
			lines := tc.tamper(t, e, e.lines(t))
			if lines != nil {
				e.writeLines(t, lines)
			}
			rep := e.verify(t)
			if rep.OK || rep.FirstBad == nil {
				t.Fatalf("verify passed a tampered log: %+v", rep)
			}
			if rep.FirstBad.Kind != tc.kind || rep.FirstBad.Line != tc.line {
				t.Fatalf("first bad = %v, want kind %q at line %d (all: %v)", rep.FirstBad, tc.kind, tc.line, rep.Problems)
			}
			t.Log(rep.FirstBad)
		})
	}
}

// editAnchor replaces old with new in the anchor file, or deletes it.
func (e env) editAnchor(t *testing.T, old, new []byte) {
	t.Helper()
	dir, err := e.st.FolderDir(e.f.Root)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, AnchorFile)
	if old == nil {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(data, old) {
		t.Fatalf("anchor %s: %v", data, err)
	}
	if err := os.WriteFile(path, bytes.Replace(data, old, new, 1), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Appending after tampering never launders it: the chain goes on from the
// anchored head, the anchor moves on with it, and verify still fails.
func TestAppendAfterTamperKeepsEvidence(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		tamper func(t *testing.T, e env, lines [][]byte) [][]byte
		kind   Kind
	}{
		{"truncate the last three", func(t *testing.T, e env, l [][]byte) [][]byte { return l[:17] }, KindDeleted},
		{"delete the file", func(t *testing.T, e env, l [][]byte) [][]byte {
			os.Remove(e.logPath())
			return nil
		}, KindDeleted},
		{"rewrite with the same key", func(t *testing.T, e env, l [][]byte) [][]byte {
			return freshChain(t, e, e.st.Key, 20)
		}, KindBroken},
		{"rewrite longer with the same key", func(t *testing.T, e env, l [][]byte) [][]byte {
			return freshChain(t, e, e.st.Key, 25)
		}, KindRewritten},
		{"edit a record", func(t *testing.T, e env, l [][]byte) [][]byte {
			l[3] = bytes.Replace(l[3], []byte("escalate"), []byte("allow"), 1)
			return l
		}, KindEdited},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.appendN(t, 20)
			if lines := tc.tamper(t, e, e.lines(t)); lines != nil {
				e.writeLines(t, lines)
			}
			e.appendN(t, 3)
			e.appendN(t, 2)
			rep := e.verify(t)
			if rep.OK || rep.FirstBad.Kind != tc.kind {
				t.Fatalf("first bad = %v, want %q (all %v)", rep.FirstBad, tc.kind, rep.Problems)
			}
		})
	}
}

// A Log in use whose file is deleted under it goes on in a new file from
// its own head; the loss stays visible.
func TestLiveLogFileDeleted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	l := e.open(t)
	for i := range 5 {
		if _, err := l.Append(testEntry(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(e.logPath()); err != nil {
		t.Fatal(err)
	}
	r, err := l.Append(testEntry(5))
	if err != nil || r.Seq != 6 {
		t.Fatalf("seq %d, %v", r.Seq, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	rep := e.verify(t)
	if rep.OK || rep.FirstBad.Kind != KindDeleted || rep.FirstBad.Line != 1 || rep.Anchor.Seq != 6 {
		t.Fatalf("first bad %v, anchor %+v", rep.FirstBad, rep.Anchor)
	}
}
