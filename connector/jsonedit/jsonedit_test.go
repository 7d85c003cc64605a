package jsonedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

type entry struct {
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// testEdit adds {"hooks": {"ev": [entry]}, "servers": {"sb": {...}}}.
func testEdit(cmd string, where Where) Edit {
	return Edit{File: "conf/settings.json", Command: cmd,
		Add: func(d *Doc) ([]Site, error) {
			var sites []Site
			add := func(s *Site, err error) error {
				if s != nil {
					sites = append(sites, *s)
				}
				return err
			}
			if err := add(d.EnsureMember(nil, "hooks", Object)); err != nil {
				return nil, err
			}
			if err := add(d.EnsureMember([]string{"hooks"}, "ev", Array)); err != nil {
				return nil, err
			}
			arr, err := d.Lookup([]string{"hooks", "ev"})
			if err != nil {
				return nil, err
			}
			found := false
			for _, el := range arr.Elems {
				found = found || matchCommand(cmd)(Site{}, el)
			}
			if !found {
				s, err := d.AddElement([]string{"hooks", "ev"}, entry{cmd, 5}, where)
				if err := add(&s, err); err != nil {
					return nil, err
				}
			}
			if err := add(d.EnsureMember(nil, "servers", Object)); err != nil {
				return nil, err
			}
			if n, _ := d.Lookup([]string{"servers", "sb"}); n == nil {
				s, err := d.AddMember([]string{"servers"}, "sb", map[string]any{"command": cmd})
				if err := add(&s, err); err != nil {
					return nil, err
				}
			}
			return sites, nil
		},
		Ours: matchCommand,
	}
}

func matchCommand(cmd string) Matcher {
	return func(_ Site, n *Node) bool {
		if n.Kind != Object {
			return false
		}
		c, _ := n.Get("command")
		return c != nil && c.Kind == String && c.Str == cmd
	}
}

func write(t *testing.T, root, rel, content string) string {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRoundTrip(t *testing.T) {
	files := []struct{ name, content string }{
		{"empty object", "{}"},
		{"empty object newline", "{}\n"},
		{"spaced empty", "{ }\n"},
		{"one line", `{"a": 1, "hooks": {"ev": [{"command": "mine"}]}}`},
		{"tabs", "{\n\t\"a\": [1, 2],\n\t\"hooks\": {\n\t\t\"ev\": []\n\t}\n}\n"},
		{"four spaces", "{\n    \"servers\": {\n        \"other\": {\"command\": \"x\"}\n    }\n}"},
		{"existing empty containers", "{\n  \"hooks\": {},\n  \"servers\": {}\n}\n"},
		{"unicode", "{\n  \"name\": \"caf\u00e9 <&>\",\n  \"hooks\": {\"ev\": [\n      {\"command\": \"a\"},\n      {\"command\": \"b\"}\n  ]}\n}\n"},
		{"crlf", "{\r\n  \"a\": true\r\n}\r\n"},
	}
	for _, where := range []Where{Last, First} {
		for _, tc := range files {
			t.Run(tc.name, func(t *testing.T) {
				root := t.TempDir()
				path := write(t, root, "conf/settings.json", tc.content)
				os.Chmod(path, 0o640)
				e := testEdit("/bin/sandbox hook x", where)
				ch, changed, err := e.Install(root, nil)
				if err != nil || !changed {
					t.Fatalf("install: %v %v", changed, err)
				}
				merged, _ := os.ReadFile(path)
				var v struct {
					Hooks   map[string][]entry
					Servers map[string]map[string]string
				}
				if err := json.Unmarshal(merged, &v); err != nil {
					t.Fatalf("merged is not JSON: %v\n%s", err, merged)
				}
				if n := count(v.Hooks["ev"], e.Command); n != 1 || v.Servers["sb"]["command"] != e.Command {
					t.Fatalf("merged: %d entries\n%s", n, merged)
				}
				if where == First && v.Hooks["ev"][0].Command != e.Command {
					t.Errorf("not first:\n%s", merged)
				}
				again, changed, err := e.Install(root, ch)
				if err != nil || changed || again != ch {
					t.Fatalf("second install: %v %v", changed, err)
				}
				if err := Uninstall(root, ch, e.Ours(e.Command)); err != nil {
					t.Fatal(err)
				}
				got, _ := os.ReadFile(path)
				if string(got) != tc.content {
					t.Errorf("round trip:\n got %q\nwant %q\nmerged:\n%s", got, tc.content, merged)
				}
				if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
					t.Errorf("mode %v", fi.Mode())
				}
			})
		}
	}
}

func count(es []entry, cmd string) int {
	n := 0
	for _, e := range es {
		if e.Command == cmd {
			n++
		}
	}
	return n
}

func TestCreatedFileAndDirAreRemoved(t *testing.T) {
	root := t.TempDir()
	e := testEdit("sandbox hook x", Last)
	ch, _, err := e.Install(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Created || !ch.CreatedDir {
		t.Fatalf("change %+v", ch)
	}
	if err := Uninstall(root, ch, e.Ours(e.Command)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "conf")); !os.IsNotExist(err) {
		t.Errorf("conf/ left behind: %v", err)
	}
}

func TestUserEditsSurviveUninstall(t *testing.T) {
	root := t.TempDir()
	path := write(t, root, "conf/settings.json", "{\"keep\": 1}\n")
	e := testEdit("sandbox hook x", Last)
	ch, _, err := e.Install(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The user adds a hook of their own beside sandbox's, and a server.
	b, _ := os.ReadFile(path)
	var v map[string]any
	json.Unmarshal(b, &v)
	v["hooks"].(map[string]any)["ev"] = append(v["hooks"].(map[string]any)["ev"].([]any), map[string]any{"command": "mine"})
	v["servers"].(map[string]any)["theirs"] = map[string]any{"command": "t"}
	b, _ = json.MarshalIndent(v, "", "  ")
	os.WriteFile(path, b, 0o644)
	if err := Uninstall(root, ch, e.Ours(e.Command)); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	var after struct {
		Keep    int
		Hooks   map[string][]entry
		Servers map[string]map[string]string
	}
	if err := json.Unmarshal(b, &after); err != nil {
		t.Fatal(err)
	}
	if after.Keep != 1 || count(after.Hooks["ev"], "mine") != 1 || count(after.Hooks["ev"], e.Command) != 0 ||
		after.Servers["theirs"] == nil || after.Servers["sb"] != nil {
		t.Errorf("after uninstall:\n%s", b)
	}
}

func TestCommandChangeReplacesEntries(t *testing.T) {
	root := t.TempDir()
	path := write(t, root, "conf/settings.json", "{\n  \"x\": 1\n}\n")
	ch, _, err := testEdit("/old/sandbox hook x", Last).Install(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := testEdit("/new/sandbox hook x", Last)
	ch2, changed, err := e.Install(root, ch)
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	b, _ := os.ReadFile(path)
	if bytes.Contains(b, []byte("/old/")) || !bytes.Contains(b, []byte("/new/")) {
		t.Fatalf("after reinstall:\n%s", b)
	}
	if err := Uninstall(root, ch2, e.Ours(e.Command)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{\n  \"x\": 1\n}\n" {
		t.Errorf("round trip: %q", b)
	}
}

func TestRefusals(t *testing.T) {
	tests := []struct{ name, content, where string }{
		{"syntax", "{\n  \"a\": 1,\n}\n", "settings.json:3:"},
		{"comments", "{\n  // note\n  \"a\": 1\n}\n", "settings.json:2:"},
		{"array top", "[]\n", "settings.json:1:"},
		{"hooks not object", "{\"hooks\": []}\n", "settings.json:1:"},
		{"duplicate key", "{\"hooks\": {}, \"hooks\": {}}\n", "duplicate"},
		{"server taken", "{\"servers\": {\"sb\": 1}}", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			path := write(t, root, "conf/settings.json", tc.content)
			_, _, err := testEdit("sandbox hook x", Last).Install(root, nil)
			if err == nil && tc.name != "server taken" {
				t.Fatal("no error")
			}
			if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrConflict) {
				t.Errorf("err = %v", err)
			}
			if err != nil && tc.where != "" && !bytes.Contains([]byte(err.Error()), []byte(tc.where)) {
				t.Errorf("err = %v, want %q", err, tc.where)
			}
			if b, _ := os.ReadFile(path); err != nil && string(b) != tc.content {
				t.Error("file changed")
			}
		})
	}
}

func TestSymlinkRefused(t *testing.T) {
	root := t.TempDir()
	target := write(t, root, "real.json", "{}")
	os.MkdirAll(filepath.Join(root, "conf"), 0o755)
	if err := os.Symlink(target, filepath.Join(root, "conf/settings.json")); err != nil {
		t.Skip(err)
	}
	if _, _, err := testEdit("x", Last).Install(root, nil); !errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v", err)
	}
}
