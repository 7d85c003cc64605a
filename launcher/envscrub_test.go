package launcher

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestScrubbedEnv(t *testing.T) {
	env := []string{"PATH=/bin", "HOME=/h", "PWD=/p", "OLDPWD=/o", "TERM=xterm", "LANG=C",
		"GITHUB_TOKEN=x", "GH_TOKEN=x", "NODE_AUTH_TOKEN=x", "npm_config__authToken=x", "AWS_SECRET_ACCESS_KEY=x",
		"AWS_ACCESS_KEY_ID=x", "AWS_SESSION_TOKEN=x", "AWS_REGION=eu-west-1", "STRIPE_SECRET=x", "MYSQL_PWD=x",
		"PGPASSWORD=x", "AZURE_CLIENT_SECRET=x", "GOOGLE_APPLICATION_CREDENTIALS=/k.json", "TMUX=/tmp/t,1,0",
		"TMUX_PANE=%1", "STY=1", "DISPLAY=:0", "WAYLAND_DISPLAY=w", "XAUTHORITY=/x", "SSH_AUTH_SOCK=/s",
		"SSH_AGENT_PID=1", "GPG_AGENT_INFO=/g", "DBUS_SESSION_BUS_ADDRESS=unix:path=/b",
		"VSCODE_IPC_HOOK_CLI=/v", "VSCODE_GIT_IPC_HANDLE=/v", "GIT_ASKPASS=/a", "SSH_ASKPASS=/a",
		"KRB5CCNAME=/k", "ANTHROPIC_API_KEY=k", "OPENAI_API_KEY=k", "DEPLOY_TOKEN=d", "DATABASE_URL=u"}
	tests := []struct {
		name  string
		agent string
		keep  []string
		drop  []string
		want  []string // the names kept
	}{
		{"no agent", "bash", nil, nil, []string{"PATH", "HOME", "PWD", "OLDPWD", "TERM", "LANG", "AWS_REGION", "DATABASE_URL"}},
		{"claude keeps its key", "claude", nil, nil,
			[]string{"PATH", "HOME", "PWD", "OLDPWD", "TERM", "LANG", "AWS_REGION", "ANTHROPIC_API_KEY", "DATABASE_URL"}},
		{"codex keeps its key", "codex", nil, nil,
			[]string{"PATH", "HOME", "PWD", "OLDPWD", "TERM", "LANG", "AWS_REGION", "OPENAI_API_KEY", "DATABASE_URL"}},
		{"policy keep and drop", "claude", []string{"deploy_*"}, []string{"DATABASE_URL", "AWS_*"},
			[]string{"PATH", "HOME", "PWD", "OLDPWD", "TERM", "LANG", "ANTHROPIC_API_KEY", "DEPLOY_TOKEN"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &Options{Agent: tc.agent, EnvKeep: tc.keep, EnvDrop: tc.drop}
			kept, dropped := ScrubbedEnv(env, envRules(o))
			var names []string
			for _, kv := range kept {
				names = append(names, kv[:len(kv)-len(kv[indexEq(kv):])])
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("kept %v\nwant %v", names, tc.want)
			}
			if len(kept)+len(dropped) != len(env) {
				t.Errorf("kept %d + dropped %d != %d", len(kept), len(dropped), len(env))
			}
		})
	}
}

func indexEq(kv string) int {
	for i := range kv {
		if kv[i] == '=' {
			return i
		}
	}
	return len(kv)
}

func TestPassedKeys(t *testing.T) {
	env := []string{"ANTHROPIC_API_KEY=k", "GITHUB_TOKEN=x", "EDITOR=vi"}
	if got := PassedKeys(env, envRules(&Options{Agent: "claude"})); !slices.Equal(got, []string{"ANTHROPIC_API_KEY"}) {
		t.Errorf("PassedKeys = %v", got)
	}
}

// TestScrubbedEnvSecretsBeyondNames: secrets whose names the first
// patterns missed reached the jail: personal access tokens (GITHUB_PAT),
// DSNs (SENTRY_DSN holds a key), GitLab's DOCKER_AUTH_CONFIG, and any
// URL with a password in it (DATABASE_URL=postgres://u:pw@..., a proxy
// with credentials). The keep list still wins.
func TestScrubbedEnvSecretsBeyondNames(t *testing.T) {
	env := []string{"GITHUB_PAT=ghp_x", "GH_PAT=x", "SENTRY_DSN=https://k@sentry.io/1",
		"DOCKER_AUTH_CONFIG={}", "DATABASE_URL=postgres://u:hunter2@db/x", "REDIS_URL=redis://:pw@h:6379",
		"PIP_INDEX_URL=https://user:tok@pypi.example/simple", "HTTPS_PROXY=http://u:p@proxy:3128",
		"GOPROXY=https://proxy.golang.org,direct", "HOMEPAGE=https://user@example.com/", "PATH=/bin",
		"SITE=http://example.com/a:b@c"}
	kept, _ := ScrubbedEnv(env, envRules(&Options{Agent: "bash"}))
	want := []string{"GOPROXY=https://proxy.golang.org,direct", "HOMEPAGE=https://user@example.com/", "PATH=/bin",
		"SITE=http://example.com/a:b@c"}
	if !slices.Equal(kept, want) {
		t.Errorf("kept %v\nwant %v", kept, want)
	}
	kept, _ = ScrubbedEnv(env, envRules(&Options{Agent: "bash", EnvKeep: []string{"DATABASE_URL"}}))
	if !slices.Contains(kept, "DATABASE_URL=postgres://u:hunter2@db/x") {
		t.Errorf("the keep list did not keep DATABASE_URL: %v", kept)
	}
}

// FuzzEnvPattern: a compiled pattern matches a name exactly when
// filepath.Match of the upper-cased pattern does (the jail's environment
// is scrubbed with the compiled ones).
func FuzzEnvPattern(f *testing.F) {
	for _, s := range [][2]string{{"*TOKEN", "GH_TOKEN"}, {"*_SECRET_*", "A_SECRET_B"}, {"TMUX_*", "TMUX_PANE"},
		{"*A*A*", "AXA"}, {"A**B", "AB"}, {"*", ""}, {"NETRC", "netrc"}, {"*_KEY", "A/B_KEY"}, {"X?Y", "XAY"}, {"[AB]C", "AC"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		want, err := filepath.Match(strings.ToUpper(pat), strings.ToUpper(name))
		if err != nil {
			return // a malformed pattern: the policy refuses it
		}
		if got := matchEnv([]string{pat}, name); got != want {
			t.Errorf("pattern %q, name %q: %v, filepath.Match says %v", pat, name, got, want)
		}
	})
}
