package codex

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/mcpserver"
)

func TestInitFindsTheIntegrationWithMCP(t *testing.T) {
	i, err := adapter.Installer("codex")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := i.(WithMCP); !ok {
		t.Fatalf("adapter.Installer(\"codex\") is %T, not the hooks with the MCP server", i)
	}
}

func TestMCPRoundTrip(t *testing.T) {
	tests := []struct {
		name, config string
		exists       bool
	}{
		{"absent", "", false},
		{"user", "model = \"o3\"\n\n[mcp_servers.github]\ncommand = \"npx\"\nargs = [\"-y\", \"gh-mcp\"]\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, path := project(t, tc.config, tc.exists)
			ch, err := WithMCP{}.Install(env, nil)
			if err != nil {
				t.Fatal(err)
			}
			merged, _ := os.ReadFile(path)
			golden(t, "mcp-"+tc.name+".toml", bytes.ReplaceAll(merged, []byte(env.Folder.Root), []byte("/work/project")))
			checkHooks(t, merged)
			checkServer(t, merged, env.Folder.Root)
			again, err := WithMCP{}.Install(env, ch)
			if err != nil || !bytes.Equal(again, ch) {
				t.Fatalf("second install: %v", err)
			}
			if err := (WithMCP{}).Uninstall(env, ch); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if !tc.exists {
				if !os.IsNotExist(err) {
					t.Errorf("created file left behind: %v", err)
				}
				return
			}
			if string(b) != tc.config {
				t.Errorf("round trip:\n%q\n%q", b, tc.config)
			}
		})
	}
}

func checkServer(t *testing.T, data []byte, root string) {
	t.Helper()
	var cfg struct {
		MCPServers map[string]struct {
			Command                  string
			Args                     []string
			ToolTimeoutSec           int    `toml:"tool_timeout_sec"`
			DefaultToolsApprovalMode string `toml:"default_tools_approval_mode"`
		} `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	s := cfg.MCPServers[mcpserver.ServerName]
	if s.Command != testExe || strings.Join(s.Args, " ") != "mcp "+root || s.ToolTimeoutSec < mcpserver.MaxWaitSeconds ||
		s.DefaultToolsApprovalMode != "approve" {
		t.Errorf("server %+v", s)
	}
}

func TestMCPUpgradesAHooksOnlyChange(t *testing.T) {
	env, path := project(t, "model = \"o3\"\n", true)
	hooksOnly, err := Integration{}.Install(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := WithMCP{}.Install(env, hooksOnly)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if strings.Count(string(b), beginMarker) != 1 || strings.Count(string(b), mcpBeginMarker) != 1 {
		t.Fatalf("after the upgrade:\n%s", b)
	}
	if err := (WithMCP{}).Uninstall(env, ch); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "model = \"o3\"\n" {
		t.Errorf("after uninstall %q", b)
	}
}

func TestMCPRefusesAServerOfTheSameName(t *testing.T) {
	config := "[mcp_servers.sandbox]\ncommand = \"something-else\"\n"
	env, path := project(t, config, true)
	_, err := WithMCP{}.Install(env, nil)
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != config {
		t.Errorf("the hooks were not taken out again:\n%s", b)
	}
}
