package queue

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapOutput(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789"), 10000)
	utf := []byte(strings.Repeat("é€😀", 5000))
	cases := []struct {
		name      string
		in        []byte
		max       int
		truncated bool
	}{
		{"fits", []byte("hello"), 10, false},
		{"exact", []byte("hello"), 5, false},
		{"empty", nil, 10, false},
		{"big", big, DefaultOutputCap, true},
		{"utf8", utf, 1000, true},
		{"tiny cap", big, 20, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, trunc := CapOutput(tc.in, tc.max)
			if trunc != tc.truncated || len(out) > tc.max {
				t.Fatalf("len %d truncated %v", len(out), trunc)
			}
			if !trunc {
				if out != string(tc.in) {
					t.Fatal("changed")
				}
				return
			}
			if tc.max < 100 {
				return
			}
			if !strings.Contains(out, "bytes truncated") || !strings.HasPrefix(string(tc.in), out[:10]) ||
				!strings.HasSuffix(string(tc.in), out[len(out)-10:]) {
				t.Fatalf("no head, marker and tail: %q...", out[:40])
			}
			if utf8.Valid(tc.in) && !utf8.ValidString(out) {
				t.Fatal("cut inside a character")
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	content := "abc"
	cases := []struct {
		r    *Request
		want string
	}{
		{shellReq("echo \x1b[2Jhi\nrm -rf /", ""), `echo \x1b[2Jhi\nrm -rf /`},
		{&Request{Kind: KindShell, Shell: &ShellPayload{Argv: []string{"git", "commit", "-m", "it's done"}}}, `git commit -m 'it'\''s done'`},
		{&Request{Kind: KindWrite, Write: &WritePayload{Path: "/a/\u202eb", Content: &content}}, `/a/\u202eb (3 bytes)`},
		{&Request{Kind: KindNetwork, Network: &NetworkPayload{Host: "example.com", Port: 443}}, "example.com:443"},
		{&Request{Kind: KindRead, Read: &ReadPayload{Path: "/etc/hosts"}}, "/etc/hosts"},
		{&Request{Kind: KindMCP, MCP: &MCPPayload{Tool: "deploy", Arguments: []byte(`{"x":1}`)}}, `deploy {"x":1}`},
	}
	for _, tc := range cases {
		if got := Summarize(tc.r); got != tc.want {
			t.Errorf("Summarize = %q, want %q", got, tc.want)
		}
	}
	if got := Summarize(shellReq(strings.Repeat("x", 500), "")); utf8.RuneCountInString(got) != SummaryLen {
		t.Errorf("not truncated: %d", len(got))
	}
}

func TestList(t *testing.T) {
	q := testQueue(t)
	a := submit(t, q, shellReq("echo a", "s"))
	b := submit(t, q, shellReq("echo b", "s"))
	c := submit(t, q, shellReq("echo c", "s"))
	cl, err := q.Claim(b)
	mustOK(t, err)
	defer cl.Release()
	cc, err := q.Claim(c)
	mustOK(t, err)
	approve(t, cc, "c")
	got, problems := q.List()
	if len(problems) != 0 || len(got) != 3 {
		t.Fatalf("list = %+v %v", got, problems)
	}
	want := map[string]State{a: StatePending, b: StateClaimed, c: StateDone}
	for _, s := range got {
		if want[s.ID] != s.State || s.Kind != KindShell || s.Created.IsZero() || s.Summary == "" {
			t.Errorf("summary %+v", s)
		}
		if s.ID == c && (s.Decision != Approved || s.ExitCode == nil || s.Summary != "echo c") {
			t.Errorf("done summary %+v", s)
		}
	}
	if only, _ := q.List(StatePending); len(only) != 1 || only[0].ID != a {
		t.Errorf("pending only: %+v", only)
	}
	r, s, err := q.Load(b)
	if err != nil || s != StateClaimed || r.Shell.Script != "echo b" {
		t.Errorf("load: %v %v %v", r, s, err)
	}
}

func TestCleanText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"ok", 10, "ok"},
		{"a\x00b", 10, `a\x00b`},
		{"a\xffb", 10, "a\ufffdb"},
		{"日本語", 7, "日本"},
	} {
		if got := cleanText(tc.in, tc.max); got != tc.want {
			t.Errorf("cleanText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
