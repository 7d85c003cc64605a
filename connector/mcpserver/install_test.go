package mcpserver

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter/adaptertest"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestInstall runs the shared install suite on .mcp.json.
func TestInstall(t *testing.T) {
	adaptertest.RunInstallTests(t, func() adaptertest.Integration {
		return adaptertest.Integration{
			Install: Integration{}, Files: []string{ProjectFile}, Update: *update,
			Cases: []adaptertest.Case{
				{Name: "absent"},
				{Name: "empty", Files: map[string]string{ProjectFile: "{}\n"}},
				{Name: "user-servers", Files: map[string]string{ProjectFile: "{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-github\"]\n    }\n  }\n}\n"}},
				{Name: "compact", Files: map[string]string{ProjectFile: `{"mcpServers":{"db":{"command":"db-mcp"}}}`}},
			},
			Golden: func(c, _ string) string { return "mcp-" + c + ".json" },
			Check: func(t *testing.T, env install.Env, files map[string][]byte) {
				var cfg struct{ MCPServers map[string]Entry }
				if err := json.Unmarshal(files[ProjectFile], &cfg); err != nil {
					t.Fatal(err)
				}
				got := cfg.MCPServers[ServerName]
				if got.Command != env.Exe || strings.Join(got.Args, " ") != "mcp "+env.Folder.Root || got.Type != "stdio" {
					t.Errorf("entry %+v", got)
				}
			},
			Refusals: []adaptertest.Refusal{
				{Name: "taken", Files: map[string]string{ProjectFile: `{"mcpServers": {"sandbox": {"command": "something-else"}}}`}, Err: jsonedit.ErrConflict},
				{Name: "syntax", Files: map[string]string{ProjectFile: "{\"mcpServers\": {\n}"}, Err: jsonedit.ErrMalformed},
				{Name: "not an object", Files: map[string]string{ProjectFile: `{"mcpServers": []}`}, Err: jsonedit.ErrMalformed},
			},
		}
	})
}
