package hookd

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func req(fields ...string) string { return strings.Join(fields, "\x00") + "\x00" }

func TestReadRequest(t *testing.T) {
	q, err := ReadRequest(strings.NewReader(req(Magic, "42", "/p", "/p/sub", "echo hi", "declare -x A=\"1\"\ndeclare -x B=\"x=y\"\n")))
	if err != nil {
		t.Fatal(err)
	}
	if q.PID != 42 || q.Root != "/p" || q.Dir != "/p/sub" || q.Script != "echo hi" || len(q.Env) != 2 || q.Env[1] != "B=x=y" {
		t.Errorf("got %+v", q)
	}
}

func TestReadRequestRefusesBadInput(t *testing.T) {
	for name, in := range map[string]string{
		"other protocol":    req("sandbox-runner 2", "42", "/p", "/p", "x", ""),
		"pid not a number":  req(Magic, "4x", "/p", "/p", "x", ""),
		"pid zero":          req(Magic, "0", "/p", "/p", "x", ""),
		"pid with sign":     req(Magic, "+42", "/p", "/p", "x", ""),
		"relative root":     req(Magic, "42", "p", "/p", "x", ""),
		"relative dir":      req(Magic, "42", "/p", "sub", "x", ""),
		"nameless env":      req(Magic, "42", "/p", "/p", "x", "declare -x =\"1\"\n"),
		"env not export -p": req(Magic, "42", "/p", "/p", "x", "A=1\n"),
		"cut short":         Magic + "\x0042\x00/p",
		"no end":            Magic + "\x0042\x00/p\x00/p\x00x\x00declare -x A=\"1\"\n",
		"empty":             "",
	} {
		if _, err := ReadRequest(strings.NewReader(in)); !errors.Is(err, ErrRequest) {
			t.Errorf("%s: err = %v, want ErrRequest", name, err)
		}
	}
	if _, err := ReadRequest(strings.NewReader(req("sandbox-run 1", "42", "/p", "/p", "x", "A=1", ""))); !errors.Is(err, ErrVersion) {
		t.Errorf("another version: err = %v, want ErrVersion", err)
	}
	huge := req(Magic, "42", "/p", "/p", strings.Repeat("x", MaxRequest), "")
	if _, err := ReadRequest(strings.NewReader(huge)); !errors.Is(err, ErrRequest) {
		t.Errorf("a request over the limit: %v", err)
	}
}

func TestAnswers(t *testing.T) {
	var b bytes.Buffer
	WriteAnswer(&b, 3, "/p/sub")
	WriteFallback(&b)
	WriteAnswer(&b, 0, "/p/\x00evil")
	if got := b.String(); got != "3\x00/p/sub\x00fallback\x00\x000\x00\x00" {
		t.Errorf("answers = %q", got)
	}
}

func FuzzReadRequest(f *testing.F) {
	f.Add(req(Magic, "42", "/p", "/p/sub", "echo hi", "declare -x A=\"1\"\nexport B=$'\\n'\ndeclare -ax C=([0]=\"1\")\n"))
	f.Add(req(Magic, "1", "/", "/", "", ""))
	f.Fuzz(func(t *testing.T, in string) {
		q, err := ReadRequest(strings.NewReader(in))
		if err != nil {
			return
		}
		if q.PID <= 0 || !strings.HasPrefix(q.Root, "/") || !strings.HasPrefix(q.Dir, "/") {
			t.Errorf("accepted %+v", q)
		}
		for _, kv := range q.Env {
			if i := strings.IndexByte(kv, '='); i <= 0 {
				t.Errorf("accepted env entry %q", kv)
			}
		}
	})
}
