package codex

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/install/installtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const testExe = installtest.Exe

func project(t *testing.T, config string, exists bool) (install.Env, string) {
	return installtest.File(t, ConfigFile, config, exists)
}

func golden(t *testing.T, name string, got []byte) { installtest.Golden(t, *update, name, got) }

func TestInstallRoundTrip(t *testing.T) {
	tests := []struct {
		name, config string
		exists       bool
	}{
		{"absent", "", false},
		{"empty", "", true},
		{"user", "model = \"o3\"\n\n[features]\nplugins = false\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"./mine.sh\"\n", true},
		{"no-final-newline", "model = \"o3\"", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, path := project(t, tc.config, tc.exists)
			ch, err := Integration{}.Install(env, nil)
			if err != nil {
				t.Fatal(err)
			}
			merged, _ := os.ReadFile(path)
			golden(t, tc.name+".toml", merged)
			checkHooks(t, merged)
			again, err := Integration{}.Install(env, ch)
			if err != nil || !bytes.Equal(again, ch) {
				t.Fatalf("second install: %v", err)
			}
			if b, _ := os.ReadFile(path); !bytes.Equal(b, merged) {
				t.Fatal("second install changed the file")
			}
			if err := (Integration{}).Uninstall(env, ch); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if !tc.exists {
				if !os.IsNotExist(err) {
					t.Errorf("created file left behind: %v", err)
				}
				if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
					t.Errorf(".codex/ left behind")
				}
				return
			}
			if string(b) != tc.config {
				t.Errorf("round trip:\n%q\n%q", b, tc.config)
			}
		})
	}
}

func checkHooks(t *testing.T, data []byte) {
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
				if h.Command == testExe+" hook codex" && h.Type == "command" && h.Timeout > 0 {
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

func TestInstallRefuses(t *testing.T) {
	tests := []struct{ name, config, where string }{
		{"syntax", "model = \"o3\"\n[features\n", "config.toml:2:"},
		{"inline hooks conflict", "hooks = { PreToolUse = [] }\n", "config.toml:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, path := project(t, tc.config, true)
			_, err := Integration{}.Install(env, nil)
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.where) {
				t.Fatalf("err = %v", err)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.config {
				t.Error("file changed")
			}
		})
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
