package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/install/installtest"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const (
	testExe  = installtest.Exe
	testRoot = "/work/project"
)

func golden(t *testing.T, name string, got []byte) { installtest.Golden(t, *update, name, got) }

// fixedEnv is an install.Env whose folder root is the fixed testRoot
// (what goes into the file) while the files live in a temp dir.
func project(t *testing.T, content string, exists bool) (install.Env, string) {
	return installtest.File(t, ProjectFile, content, exists)
}

// normalize replaces the temp project root with testRoot for goldens.
func normalize(b []byte, root string) []byte {
	return bytes.ReplaceAll(b, []byte(root), []byte(testRoot))
}

func TestMCPJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name, content string
		exists        bool
	}{
		{"absent", "", false},
		{"empty", "{}\n", true},
		{"user-servers", "{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-github\"]\n    }\n  }\n}\n", true},
		{"compact", `{"mcpServers":{"db":{"command":"db-mcp"}}}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, path := project(t, tc.content, tc.exists)
			ch, err := Integration{}.Install(env, nil)
			if err != nil {
				t.Fatal(err)
			}
			merged, _ := os.ReadFile(path)
			golden(t, "mcp-"+tc.name+".json", normalize(merged, env.Folder.Root))
			var cfg struct{ MCPServers map[string]Entry }
			if err := json.Unmarshal(merged, &cfg); err != nil {
				t.Fatal(err)
			}
			got := cfg.MCPServers[ServerName]
			if got.Command != testExe || strings.Join(got.Args, " ") != "mcp "+env.Folder.Root || got.Type != "stdio" {
				t.Errorf("entry %+v", got)
			}
			again, err := Integration{}.Install(env, ch)
			if err != nil || !bytes.Equal(again, ch) {
				t.Fatalf("second install: %v", err)
			}
			if err := (Integration{}).Uninstall(env, ch); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if !tc.exists {
				if !os.IsNotExist(err) {
					t.Errorf("created file left behind: %v", err)
				}
				return
			}
			if string(b) != tc.content {
				t.Errorf("round trip:\n%q\n%q", b, tc.content)
			}
		})
	}
}

func TestMCPJSONRefuses(t *testing.T) {
	tests := []struct {
		name, content string
		want          error
	}{
		{"taken", `{"mcpServers": {"sandbox": {"command": "something-else"}}}`, jsonedit.ErrConflict},
		{"syntax", "{\"mcpServers\": {\n}", jsonedit.ErrMalformed},
		{"not an object", `{"mcpServers": []}`, jsonedit.ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, path := project(t, tc.content, true)
			if _, err := (Integration{}).Install(env, nil); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.content {
				t.Error("file changed")
			}
		})
	}
}

func TestMCPJSONMovedBinaryReplacesEntry(t *testing.T) {
	env, path := project(t, "{}\n", true)
	ch, err := Integration{}.Install(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	env.Exe = "/usr/local/bin/sandbox"
	ch2, err := Integration{}.Install(env, ch)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if bytes.Contains(b, []byte(testExe)) || !bytes.Contains(b, []byte(env.Exe)) {
		t.Fatalf("after reinstall:\n%s", b)
	}
	if err := (Integration{}).Uninstall(env, ch2); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{}\n" {
		t.Errorf("after uninstall %q", b)
	}
}
