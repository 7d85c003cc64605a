package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// FuzzArgs: any arguments are either accepted within their bounds or
// refused with ErrBadArguments; nothing panics.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{`{"command":"ls","reason":"r"}`, `{"wait_seconds":"12"}`, `{"wait_seconds":1e309}`, `[]`, `null`, `"x"`, `{"command":"\u0000"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		a := newArgs(raw, "command", "reason", "cwd", "wait_seconds")
		cmd := a.str("command", true, maxCommand)
		w := a.wait()
		if err := a.err(ToolRun); err == nil && (strings.TrimSpace(cmd) == "" || w < 0 || w.Seconds() > MaxWaitSeconds) {
			t.Fatalf("accepted %q: command %q, wait %v", raw, cmd, w)
		}
	})
}

// FuzzMessages: any input line gets at most one JSON answer (none for a
// notification or a response), and nothing panics. Tool calls reach a
// stub: the fuzzer never runs a command.
func FuzzMessages(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_privileged","arguments":{"command":"x"},"_meta":{"progressToken":7}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`, `{`, `[]`, `{"id":null}`,
	} {
		f.Add(s)
	}
	s, err := New(Options{Folder: folder.Folder{Root: "/nonexistent"}})
	if err != nil {
		f.Fatal(err)
	}
	for name := range s.handlers {
		s.handlers[name] = func(context.Context, *callParams) (*ToolResult, error) { return errorResult("stub"), nil }
	}
	f.Fuzz(func(t *testing.T, line string) {
		line = strings.ReplaceAll(line, "\n", " ")
		var out bytes.Buffer
		if err := s.Serve(context.Background(), strings.NewReader(line+"\n"), &out); err != nil {
			return // an oversize line ends the session
		}
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, maxLine)
		n := 0
		for sc.Scan() {
			n++
			if !json.Valid(sc.Bytes()) {
				t.Fatalf("answer %q", sc.Text())
			}
		}
		if n > 1 {
			t.Fatalf("%d answers to %q", n, line)
		}
	})
}
