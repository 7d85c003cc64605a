package codex

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/flatjson"
	"github.com/sandbox-dev/sandbox/connector/hook"
)

func patchCall(t *testing.T, patch string) (*hook.Call, error) {
	t.Helper()
	raw, _ := json.Marshal(map[string]string{"command": patch})
	c := &hook.Call{Cwd: "/proj", Tool: "apply_patch"}
	return c, MapTool("apply_patch", raw, c)
}

func TestApplyPatch(t *testing.T) {
	tests := []struct {
		name, patch string
		check       func(*hook.Call) bool
	}{
		{"add", "*** Begin Patch\n*** Add File: docs/a.md\n+# A\n+text\n*** End Patch\n", func(c *hook.Call) bool {
			return c.Action == hook.Write && c.Paths[0] == "/proj/docs/a.md" && c.Content != nil && *c.Content == "# A\ntext\n" && c.Executable
		}},
		{"update", "*** Begin Patch\n*** Update File: /etc/hosts\n@@\n 127.0.0.1 localhost\n-1.2.3.4 old\n+5.6.7.8 new\n*** End Patch", func(c *hook.Call) bool {
			return c.Paths[0] == "/etc/hosts" && len(c.Edits) == 1 && c.Edits[0].OldString == "127.0.0.1 localhost\n1.2.3.4 old" &&
				c.Edits[0].NewString == "127.0.0.1 localhost\n5.6.7.8 new" && c.Executable
		}},
		{"two hunks", "*** Begin Patch\n*** Update File: a\n@@ f\n-x\n+y\n@@ g\n-p\n+q\n*** End Patch", func(c *hook.Call) bool {
			return len(c.Edits) == 2 && c.Executable
		}},
		{"delete is not executable", "*** Begin Patch\n*** Delete File: a\n*** End Patch", func(c *hook.Call) bool {
			return c.Action == hook.Write && c.Paths[0] == "/proj/a" && !c.Executable
		}},
		{"move names both paths", "*** Begin Patch\n*** Update File: a\n*** Move to: ../b\n@@\n-x\n+y\n*** End Patch", func(c *hook.Call) bool {
			return len(c.Paths) == 2 && c.Paths[1] == "/b" && !c.Executable
		}},
		{"several files", "*** Begin Patch\n*** Add File: a\n+1\n*** Add File: b\n+2\n*** End Patch", func(c *hook.Call) bool {
			return len(c.Paths) == 2 && !c.Executable
		}},
		{"insertion without context", "*** Begin Patch\n*** Update File: a\n@@\n+new\n*** End Patch", func(c *hook.Call) bool {
			return !c.Executable
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := patchCall(t, tc.patch)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(c) {
				t.Errorf("call = %+v edits %+v", c, c.Edits)
			}
		})
	}
}

func TestApplyPatchRefusesWhatItCannotRead(t *testing.T) {
	for _, p := range []string{"", "rm -rf /", "*** Begin Patch\n*** End Patch", "*** Begin Patch\n+x\n*** End Patch",
		"*** Begin Patch\n*** Add File: a\n+x\n"} {
		if _, err := patchCall(t, p); !errors.Is(err, adapter.ErrBadInput) {
			t.Errorf("%q: err = %v", p, err)
		}
	}
}

func TestOtherTools(t *testing.T) {
	c := &hook.Call{Cwd: "/proj"}
	if err := MapTool("Bash", json.RawMessage(`{"command":"git push"}`), c); err != nil || c.Action != hook.Shell || c.Script != "git push" {
		t.Errorf("Bash: %v %+v", err, c)
	}
	c = &hook.Call{}
	if MapTool("exec_command", json.RawMessage(`{}`), c); c.Action != hook.Unknown {
		t.Errorf("unknown tool mapped to %v", c.Action)
	}
}

func FuzzApplyPatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@\n x\n-y\n+z\n*** End of File\n*** End Patch")
	f.Add("*** Begin Patch\n*** Add File: a\n+1\n*** Delete File: b\n*** End Patch")
	f.Fuzz(func(t *testing.T, patch string) {
		c, err := patchCall(t, patch)
		if err == nil && c.Action == hook.Write && len(c.Paths) == 0 {
			t.Fatal("a write with no path")
		}
	})
}

// The shell call's fast path decodes what encoding/json would, and
// refuses nothing encoding/json takes.
func TestShellInputFlatMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{`{"command":"git status","description":"see"}`, `{"command":"ls \u00e9"}`,
		`{"command":"a","command":"b"}`, `{"Command":"x"}`, `{"command":null}`, `{"command":1}`, `{"workdir":"/p","timeout_ms":1000,"command":"ls"}`} {
		var fast, slow shellInput
		if !flatjson.Object([]byte(s), fast.flatFields()) {
			continue
		}
		if err := json.Unmarshal([]byte(s), &slow); err != nil || !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: fast %+v, encoding/json %+v (%v)", s, fast, slow, err)
		}
	}
}
