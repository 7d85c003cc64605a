package queue

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func valid(mod func(r *Request)) *Request {
	r := &Request{Version: Version, ID: "01abc", Kind: KindShell,
		Shell: &ShellPayload{Shell: "bash", Script: "echo"}, Cwd: "/w", Source: SourceMCP,
		Created: time.Now()}
	mod(r)
	r.Hash = r.ComputeHash()
	return r
}

func TestValidate(t *testing.T) {
	content := "hello"
	cases := []struct {
		name  string
		mod   func(r *Request)
		field string // "" = valid
	}{
		{"shell script", func(r *Request) {}, ""},
		{"argv", func(r *Request) { r.Shell = &ShellPayload{Argv: []string{"git", "push"}} }, ""},
		{"write", func(r *Request) {
			r.Kind, r.Shell, r.Write = KindWrite, nil, &WritePayload{Path: "/w/a", Content: &content}
		}, ""},
		{"edit", func(r *Request) {
			r.Kind, r.Shell, r.Write = KindWrite, nil, &WritePayload{Path: "/w/a", Edits: []Edit{{OldString: "a", NewString: "b"}}}
		}, ""},
		{"read", func(r *Request) { r.Kind, r.Shell, r.Read = KindRead, nil, &ReadPayload{Path: "/etc/hosts"} }, ""},
		{"url", func(r *Request) { r.Kind, r.Shell, r.Network = KindNetwork, nil, &NetworkPayload{URL: "https://x"} }, ""},
		{"host", func(r *Request) { r.Kind, r.Shell, r.Network = KindNetwork, nil, &NetworkPayload{Host: "x", Port: 443} }, ""},
		{"mcp", func(r *Request) {
			r.Kind, r.Shell, r.MCP = KindMCP, nil, &MCPPayload{Tool: "t", Arguments: []byte(`{"a":1}`)}
		}, ""},
		{"version", func(r *Request) { r.Version = 2 }, "v"},
		{"id upper", func(r *Request) { r.ID = "ABC" }, "id"},
		{"id dots", func(r *Request) { r.ID = "../x" }, "id"},
		{"id long", func(r *Request) { r.ID = strings.Repeat("a", 65) }, "id"},
		{"kind", func(r *Request) { r.Kind = "exec" }, "kind"},
		{"two payloads", func(r *Request) { r.Read = &ReadPayload{Path: "/a"} }, "read"},
		{"no payload", func(r *Request) { r.Shell = nil }, "shell"},
		{"script and argv", func(r *Request) { r.Shell.Argv = []string{"x"} }, "shell"},
		{"script without shell", func(r *Request) { r.Shell.Shell = "" }, "shell.shell"},
		{"argv with shell", func(r *Request) { r.Shell = &ShellPayload{Shell: "bash", Argv: []string{"x"}} }, "shell.shell"},
		{"empty program", func(r *Request) { r.Shell = &ShellPayload{Argv: []string{""}} }, "shell.argv"},
		{"NUL in argv", func(r *Request) { r.Shell = &ShellPayload{Argv: []string{"a\x00b"}} }, "shell.argv"},
		{"NUL in script", func(r *Request) { r.Shell.Script = "a\x00" }, "shell.script"},
		{"bad UTF-8", func(r *Request) { r.Shell.Script = "a\xff" }, "shell.script"},
		{"script too big", func(r *Request) { r.Shell.Script = strings.Repeat("a", MaxScript+1) }, "shell.script"},
		{"relative cwd", func(r *Request) { r.Cwd = "w" }, "cwd"},
		{"relative write", func(r *Request) {
			r.Kind, r.Shell, r.Write = KindWrite, nil, &WritePayload{Path: "a", Content: &content}
		}, "write.path"},
		{"write both", func(r *Request) {
			r.Kind, r.Shell, r.Write = KindWrite, nil, &WritePayload{Path: "/a", Content: &content, Edits: []Edit{{OldString: "a"}}}
		}, "write"},
		{"empty old_string", func(r *Request) {
			r.Kind, r.Shell, r.Write = KindWrite, nil, &WritePayload{Path: "/a", Edits: []Edit{{}}}
		}, "write.edits"},
		{"port", func(r *Request) {
			r.Kind, r.Shell, r.Network = KindNetwork, nil, &NetworkPayload{Host: "x", Port: 70000}
		}, "network.port"},
		{"url and host", func(r *Request) { r.Kind, r.Shell, r.Network = KindNetwork, nil, &NetworkPayload{URL: "u", Host: "x"} }, "network"},
		{"mcp not json", func(r *Request) {
			r.Kind, r.Shell, r.MCP = KindMCP, nil, &MCPPayload{Tool: "t", Arguments: []byte("{")}
		}, "mcp.arguments"},
		{"source", func(r *Request) { r.Source = "agent" }, "source"},
		{"justification", func(r *Request) { r.Justification = strings.Repeat("a", MaxJustification+1) }, "justification"},
		{"reasons", func(r *Request) { r.PolicyReasons = make([]string, MaxReasons+1) }, "policy_reasons"},
		{"created", func(r *Request) { r.Created = time.Time{} }, "created"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := valid(tc.mod).Validate()
			var ve *ValidationError
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("want valid: %v", err)
			case tc.field == "":
			case !errors.As(err, &ve) || !errors.Is(err, ErrInvalid):
				t.Fatalf("want ValidationError, got %v", err)
			case ve.Field != tc.field:
				t.Fatalf("field %q, want %q (%v)", ve.Field, tc.field, err)
			}
		})
	}
}

func TestHashMismatchInvalid(t *testing.T) {
	r := valid(func(*Request) {})
	r.Shell.Script = "rm -rf /"
	if err := r.Validate(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("validate: %v", err)
	}
}

func TestHash(t *testing.T) {
	base := valid(func(*Request) {}).Hash
	same := []func(r *Request){
		func(r *Request) { r.ID = "other" },
		func(r *Request) { r.Session, r.Agent, r.Justification = "s", "a", "j" },
		func(r *Request) { r.Created = time.Unix(0, 0) },
		func(r *Request) { r.Source = SourceShim },
		func(r *Request) { r.Read = &ReadPayload{Path: "/ignored"} }, // not this kind's payload
	}
	for i, mod := range same {
		if h := valid(mod).Hash; h != base {
			t.Errorf("same[%d]: hash changed", i)
		}
	}
	differ := []func(r *Request){
		func(r *Request) { r.Cwd = "/x" },
		func(r *Request) { r.Shell.Script = "echo " },
		func(r *Request) { r.Shell.Shell = "sh" },
		func(r *Request) { r.Shell.Stdin = []byte("in") },
		// field boundaries are unambiguous: moving bytes between fields changes the hash
		func(r *Request) { r.Shell.Shell, r.Shell.Script = "bashe", "cho" },
		func(r *Request) { r.Shell = &ShellPayload{Argv: []string{"echo"}} },
	}
	for i, mod := range differ {
		if h := valid(mod).Hash; h == base {
			t.Errorf("differ[%d]: same hash", i)
		}
	}
	a := valid(func(r *Request) { r.Shell = &ShellPayload{Argv: []string{"a b", "c"}} }).Hash
	b := valid(func(r *Request) { r.Shell = &ShellPayload{Argv: []string{"a", "b c"}} }).Hash
	if a == b || len(base) != 64 {
		t.Fatal("argv boundaries are ambiguous")
	}
}

func TestRequestRoundTripsThroughFile(t *testing.T) {
	content := "<html>&amp;\u202e</html>"
	reqs := []*Request{
		valid(func(r *Request) { r.Shell.Script = "echo '<b>' && x \u2028 \x1b[31m" }),
		valid(func(r *Request) {
			r.Kind, r.Shell, r.Write = KindWrite, nil, &WritePayload{Path: "/w/a", Content: &content}
		}),
		valid(func(r *Request) { r.Shell = &ShellPayload{Argv: []string{"cat"}, Stdin: []byte{0, 1, 0xff}} }),
		valid(func(r *Request) {
			r.Kind, r.Shell, r.MCP = KindMCP, nil, &MCPPayload{Tool: "t", Arguments: []byte(`{"a": "<x>"}`)}
		}),
	}
	for i, r := range reqs {
		b, err := encode(r)
		mustOK(t, err)
		got, err := parseRequest(b, r.ID+".json")
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if got.ComputeHash() != r.Hash {
			t.Fatalf("%d: hash changed through the file", i)
		}
	}
}

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	prev := ""
	for i := range 1000 {
		id := newIDAt(time.UnixMilli(int64(1_700_000_000_000 + i)))
		if !ValidID(id) || len(id) != 26 || seen[id] || id <= prev {
			t.Fatalf("bad id %q after %q", id, prev)
		}
		seen[id], prev = true, id
	}
	if !ValidID(NewID()) {
		t.Fatal("NewID invalid")
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"a": true, "0-9": true, strings.Repeat("z", 64): true,
		"": false, "A": false, "a.json": false, "../a": false, "a/b": false, "a\x00": false,
		strings.Repeat("z", 65): false, "é": false, "a b": false,
	} {
		if ValidID(id) != want {
			t.Errorf("ValidID(%q) != %v", id, want)
		}
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":"a","kind":"shell","shell":{"shell":"bash","script":"x"},"cwd":"/","source":"cli","created":"2024-01-01T00:00:00Z","hash":"x"}`), "a.json")
	f.Add([]byte(`{}`), "x.json")
	f.Fuzz(func(t *testing.T, raw []byte, name string) {
		r, err := parseRequest(raw, name)
		if err != nil {
			if !errors.Is(err, ErrBadFile) {
				t.Fatalf("error not ErrBadFile: %v", err)
			}
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("accepted an invalid request: %v", err)
		}
		b, err := encode(r)
		mustOK(t, err)
		again, err := parseRequest(b, name)
		if err != nil || again.ComputeHash() != r.Hash {
			t.Fatalf("re-encoding changed it: %v", err)
		}
		_ = Summarize(r)
	})
}

func FuzzResultFile(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":"a","request_hash":"h","decision":"approved","approver":{"user":"u","surface":"cli"},"decided":"2024-01-01T00:00:00Z","duration_ms":0}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		q := testQueue(t)
		writeRaw(t, q.f.Done(), "a.json", raw)
		res, err := q.Result("a")
		if err != nil {
			if !errors.Is(err, ErrBadFile) {
				t.Fatalf("error not ErrBadFile: %v", err)
			}
			return
		}
		if res.Validate() != nil || res.ID != "a" {
			t.Fatalf("accepted a bad result: %+v", res)
		}
	})
}
