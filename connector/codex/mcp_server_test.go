package codex

import (
	"os"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/adapter/adaptertest"
	"github.com/sandbox-dev/sandbox/connector/install"
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

// TestInstallWithMCP runs the shared install suite on what
// `sandbox init --codex` writes: the hooks and the MCP server.
func TestInstallWithMCP(t *testing.T) {
	adaptertest.RunInstallTests(t, func() adaptertest.Integration {
		return adaptertest.Integration{
			Install: WithMCP{}, Files: []string{ConfigFile}, Update: *update,
			Cases: []adaptertest.Case{
				{Name: "absent"},
				{Name: "user", Files: map[string]string{ConfigFile: "model = \"o3\"\n\n[mcp_servers.github]\ncommand = \"npx\"\nargs = [\"-y\", \"gh-mcp\"]\n"}},
			},
			Golden: func(c, _ string) string { return "mcp-" + c + ".toml" },
			Check: func(t *testing.T, env install.Env, files map[string][]byte) {
				checkHooks(t, files[ConfigFile], adaptertest.Command(env.Exe, Name))
				checkServer(t, files[ConfigFile], env)
			},
			Refusals: []adaptertest.Refusal{
				{Name: "server of the same name", Files: map[string]string{ConfigFile: "[mcp_servers.sandbox]\ncommand = \"something-else\"\n"}, Err: ErrMalformed},
			},
		}
	})
}

func checkServer(t *testing.T, data []byte, env install.Env) {
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
	if s.Command != env.Exe || strings.Join(s.Args, " ") != "mcp "+env.Folder.Root || s.ToolTimeoutSec < mcpserver.MaxWaitSeconds ||
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
