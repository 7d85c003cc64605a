package codex

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/sandbox-dev/sandbox/connector/adapter/adaptertest"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/install/installtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func project(t *testing.T, config string, exists bool) (install.Env, string) {
	return installtest.File(t, ConfigFile, config, exists)
}

// TestInstall runs the shared install suite on the hooks alone in
// .codex/config.toml.
func TestInstall(t *testing.T) {
	adaptertest.RunInstallTests(t, func() adaptertest.Integration {
		return adaptertest.Integration{
			Install: Integration{}, Files: []string{ConfigFile}, Update: *update,
			Cases: []adaptertest.Case{
				{Name: "absent"},
				{Name: "empty", Files: map[string]string{ConfigFile: ""}},
				{Name: "user", Files: map[string]string{ConfigFile: "model = \"o3\"\n\n[features]\nplugins = false\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"./mine.sh\"\n"}},
				{Name: "no-final-newline", Files: map[string]string{ConfigFile: "model = \"o3\""}},
			},
			Check: func(t *testing.T, env install.Env, files map[string][]byte) {
				checkHooks(t, files[ConfigFile], adaptertest.Command(env.Exe, Name))
			},
			Refusals: []adaptertest.Refusal{
				{Name: "syntax", Files: map[string]string{ConfigFile: "model = \"o3\"\n[features\n"}, Err: ErrMalformed, Where: "config.toml:2:"},
				{Name: "inline hooks conflict", Files: map[string]string{ConfigFile: "hooks = { PreToolUse = [] }\n"}, Err: ErrMalformed, Where: "config.toml:"},
			},
		}
	})
}

func checkHooks(t *testing.T, data []byte, cmd string) {
	t.Helper()
	var cfg struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	if err := toml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("merged config: %v", err)
	}
	for _, ev := range []string{"PreToolUse", "PostToolUse", "SessionStart"} {
		n := 0
		for _, g := range cfg.Hooks[ev] {
			for _, h := range g.Hooks {
				if h.Command == cmd && h.Type == "command" && h.Timeout > 0 {
					n++
					if ev == "PreToolUse" && (g.Matcher != Matcher || h.Timeout <= 600) {
						t.Errorf("PreToolUse group %+v", g)
					}
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d sandbox hooks", ev, n)
		}
	}
}

func TestUninstallAfterTheUserEditedTheBlock(t *testing.T) {
	env, path := project(t, "model = \"o3\"\n", true)
	ch, err := Integration{}.Install(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte("timeout = 30"), []byte("timeout = 31"), 1), 0o600)
	if err := (Integration{}).Uninstall(env, ch); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if strings.Contains(string(b), "sandbox") || !strings.HasPrefix(string(b), "model = \"o3\"\n") {
		t.Errorf("after uninstall:\n%s", b)
	}
}
