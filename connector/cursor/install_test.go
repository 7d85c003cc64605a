package cursor

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/install/installtest"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const testExe = installtest.Exe

func golden(t *testing.T, name string, got []byte) { installtest.Golden(t, *update, name, got) }

// project writes files (relative path -> content) into a fresh root.
func project(t *testing.T, files map[string]string) install.Env { return installtest.Project(t, files) }

func read(env install.Env, rel string) []byte {
	b, _ := os.ReadFile(filepath.Join(env.Folder.Root, rel))
	return bytes.ReplaceAll(b, []byte(env.Folder.Root), []byte("/work/project"))
}

const userHooks = `{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [
      { "command": "./hooks/audit.sh" }
    ],
    "stop": [{ "command": "./hooks/notify.sh" }]
  }
}
`

const userMCP = `{
  "mcpServers": {
    "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"] }
  }
}
`

func TestInstallRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
	}{
		{"absent", nil},
		{"user", map[string]string{HooksFile: userHooks, MCPFile: userMCP}},
		{"unversioned", map[string]string{HooksFile: "{\"hooks\": {}}\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := project(t, tc.files)
			ch, err := Integration{}.Install(env, nil)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+"-hooks.json", read(env, HooksFile))
			golden(t, tc.name+"-mcp.json", read(env, MCPFile))
			checkHooks(t, read(env, HooksFile))
			again, err := Integration{}.Install(env, ch)
			if err != nil || !bytes.Equal(again, ch) {
				t.Fatalf("second install: %v\n%s\n%s", err, again, ch)
			}
			if err := (Integration{}).Uninstall(env, ch); err != nil {
				t.Fatal(err)
			}
			for _, rel := range []string{HooksFile, MCPFile} {
				b, err := os.ReadFile(filepath.Join(env.Folder.Root, rel))
				want, existed := tc.files[rel]
				switch {
				case !existed && !os.IsNotExist(err):
					t.Errorf("%s: created file left behind: %v", rel, err)
				case existed && string(b) != want:
					t.Errorf("%s round trip:\n%q\n%q", rel, b, want)
				}
			}
			if tc.files == nil {
				if _, err := os.Stat(filepath.Join(env.Folder.Root, ".cursor")); !os.IsNotExist(err) {
					t.Error(".cursor/ left behind")
				}
			}
		})
	}
}

func checkHooks(t *testing.T, data []byte) {
	t.Helper()
	var cfg struct {
		Version int
		Hooks   map[string][]entry
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Version != 1 {
		t.Errorf("version %d", cfg.Version)
	}
	for _, ev := range []string{BeforeShellExecution, BeforeMCPExecution, BeforeReadFile, AfterFileEdit} {
		es := cfg.Hooks[ev]
		if len(es) == 0 || es[0].Command != testExe+" hook cursor" {
			t.Errorf("%s: sandbox's hook is not first: %+v", ev, es)
			continue
		}
		if ev != AfterFileEdit && (!es[0].FailClosed || es[0].Timeout <= 600) {
			t.Errorf("%s: %+v", ev, es[0])
		}
	}
}

func TestInstallRefusesAndRollsBack(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  error
	}{
		{"hooks version 2", map[string]string{HooksFile: `{"version": 2, "hooks": {}}`}, jsonedit.ErrConflict},
		{"hooks not json", map[string]string{HooksFile: `{"version": 1,`}, jsonedit.ErrMalformed},
		{"mcp name taken", map[string]string{HooksFile: userHooks, MCPFile: `{"mcpServers": {"sandbox": {"command": "other"}}}`}, jsonedit.ErrConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := project(t, tc.files)
			if _, err := (Integration{}).Install(env, nil); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			for rel, want := range tc.files {
				if b, _ := os.ReadFile(filepath.Join(env.Folder.Root, rel)); string(b) != want {
					t.Errorf("%s changed:\n%s", rel, b)
				}
			}
			if _, ok := tc.files[MCPFile]; !ok {
				if _, err := os.Stat(filepath.Join(env.Folder.Root, MCPFile)); !os.IsNotExist(err) {
					t.Error("mcp.json written after a refusal")
				}
			}
		})
	}
}

func TestUninstallKeepsVersionWhileUserHooksRemain(t *testing.T) {
	env := project(t, nil)
	ch, err := Integration{}.Install(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The user adds a hook of their own to the file sandbox created.
	p := filepath.Join(env.Folder.Root, HooksFile)
	b, _ := os.ReadFile(p)
	var v map[string]any
	json.Unmarshal(b, &v)
	v["hooks"].(map[string]any)["stop"] = []any{map[string]any{"command": "./mine.sh"}}
	b, _ = json.MarshalIndent(v, "", "  ")
	os.WriteFile(p, b, 0o644)
	if err := (Integration{}).Uninstall(env, ch); err != nil {
		t.Fatal(err)
	}
	var after struct {
		Version int
		Hooks   map[string][]entry
	}
	b, _ = os.ReadFile(p)
	if err := json.Unmarshal(b, &after); err != nil || after.Version != 1 || len(after.Hooks) != 1 || after.Hooks["stop"][0].Command != "./mine.sh" {
		t.Errorf("after uninstall (%v):\n%s", err, b)
	}
}
