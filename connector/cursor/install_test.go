package cursor

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter/adaptertest"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/install/installtest"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// project writes files (relative path -> content) into a fresh root.
func project(t *testing.T, files map[string]string) install.Env { return installtest.Project(t, files) }

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

// TestInstall runs the shared install suite on .cursor/hooks.json and
// .cursor/mcp.json.
func TestInstall(t *testing.T) {
	adaptertest.RunInstallTests(t, func() adaptertest.Integration {
		return adaptertest.Integration{
			Install: Integration{}, Files: []string{HooksFile, MCPFile}, Update: *update,
			Cases: []adaptertest.Case{
				{Name: "absent"},
				{Name: "user", Files: map[string]string{HooksFile: userHooks, MCPFile: userMCP}},
				{Name: "unversioned", Files: map[string]string{HooksFile: "{\"hooks\": {}}\n"}},
			},
			Golden: func(c, rel string) string {
				if rel == MCPFile {
					return c + "-mcp.json"
				}
				return c + "-hooks.json"
			},
			Check: func(t *testing.T, env install.Env, files map[string][]byte) {
				checkHooks(t, files[HooksFile], adaptertest.Command(env.Exe, Name))
			},
			Refusals: []adaptertest.Refusal{
				{Name: "hooks version 2", Files: map[string]string{HooksFile: `{"version": 2, "hooks": {}}`}, Err: jsonedit.ErrConflict},
				{Name: "hooks not json", Files: map[string]string{HooksFile: `{"version": 1,`}, Err: jsonedit.ErrMalformed},
				{Name: "mcp name taken", Files: map[string]string{HooksFile: userHooks, MCPFile: `{"mcpServers": {"sandbox": {"command": "other"}}}`}, Err: jsonedit.ErrConflict},
			},
		}
	})
}

func checkHooks(t *testing.T, data []byte, cmd string) {
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
		if len(es) == 0 || es[0].Command != cmd {
			t.Errorf("%s: sandbox's hook is not first: %+v", ev, es)
			continue
		}
		if ev != AfterFileEdit && (!es[0].FailClosed || es[0].Timeout <= 600) {
			t.Errorf("%s: %+v", ev, es[0])
		}
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
