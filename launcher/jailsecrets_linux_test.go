//go:build linux

package launcher

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func init() {
	// cat prints what it read (or the error); env prints the environment
	probes["cat"] = func(a []string) error {
		b, err := os.ReadFile(a[0])
		if err != nil {
			return err
		}
		return verbatim(fmt.Sprintf("read %q", b))
	}
	probes["env"] = func([]string) error { return verbatim("env " + strings.Join(os.Environ(), " ")) }
	// writeplanted writes a[1] into a[0] in place, as an agent saving
	// its config does when it cannot rename
	probes["writeplanted"] = func(a []string) error {
		f, err := os.OpenFile(a[0], os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return err
		}
		_, err = f.WriteString(a[1])
		return errors.Join(err, f.Close())
	}
}

// scratchOutsideTmp is a temporary dir outside /tmp, /var/tmp and
// /dev/shm, which a jail may replace with its own: what a test places
// there is what the jail sees. The jail tests run as root.
func scratchOutsideTmp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/run", "sandbox-jailenv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// fakeHome is a home directory with secrets, outside the scratch dirs
// (and so, as a real one, not writable in the jail).
func fakeHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(scratchOutsideTmp(t), "home")
	for rel, content := range map[string]string{
		".ssh/id_ed25519":                "SECRET-ssh-key",
		".aws/credentials":               "SECRET-aws",
		".config/gh/hosts.yml":           "SECRET-gh",
		".docker/config.json":            "SECRET-docker",
		".netrc":                         "SECRET-netrc",
		".bash_history":                  "SECRET-history",
		".cargo/credentials.toml":        "SECRET-cargo",
		".local/share/fish/fish_history": "SECRET-fish",
		"notes.txt":                      "plain notes",
	} {
		mustWrite(t, filepath.Join(home, rel), content)
	}
	return home
}

// withHome returns o's environment with HOME set to home.
func withHome(env []string, home string) []string {
	out := []string{}
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HOME=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+home)
}

// TestJailHidesSecrets: a jailed command reads none of the home
// directory's secrets, nor what the read policy's own concrete rules
// name (a team rule), nor a secret reached through a symbolic link, while
// the rest of the home directory stays readable.
func TestJailHidesSecrets(t *testing.T) {
	e := newJailEnv(t)
	home := fakeHome(t)
	team := filepath.Join(filepath.Dir(home), "vault", "prod.key")
	mustWrite(t, team, "SECRET-team")
	mustWrite(t, filepath.Join(filepath.Dir(home), "certs", "a.pem"), "SECRET-glob")
	elsewhere := filepath.Join(filepath.Dir(home), "elsewhere", "kube")
	mustWrite(t, filepath.Join(elsewhere, "config"), "SECRET-kube")
	if err := os.Symlink(elsewhere, filepath.Join(home, ".kube")); err != nil {
		t.Fatal(err)
	}
	secrets := []string{
		filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, ".aws", "credentials"),
		filepath.Join(home, ".config", "gh", "hosts.yml"), filepath.Join(home, ".docker", "config.json"),
		filepath.Join(home, ".netrc"), filepath.Join(home, ".bash_history"),
		filepath.Join(home, ".cargo", "credentials.toml"), filepath.Join(home, ".local/share/fish/fish_history"),
		team, filepath.Join(filepath.Dir(home), "certs", "a.pem"),
		filepath.Join(home, ".kube", "config"), filepath.Join(elsewhere, "config"),
	}
	var cases []probeCase
	for _, s := range secrets {
		cases = append(cases, probeCase{s, "cat", []string{s}})
	}
	cases = append(cases, probeCase{"notes", "cat", []string{filepath.Join(home, "notes.txt")}})
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			o := e.options(m, e.batchArgv(cases)...)
			o.Env = withHome(o.Env, home)
			o.HideReads = []string{"~/.ssh/", team, filepath.Join(filepath.Dir(home), "certs", "*.pem"), "/**/.env*"}
			out, _ := runJailed(t, o)
			got := batchResults(t, out, len(cases))
			for i, c := range cases[:len(secrets)] {
				if strings.Contains(got[i], "SECRET") {
					t.Errorf("%s: the jail read it: %s", c.name, got[i])
				}
			}
			if g := got[len(secrets)]; !strings.Contains(g, "plain notes") {
				t.Errorf("notes.txt: %s, want it readable", g)
			}
		})
	}
}

// TestJailSSHAgentThroughLink: $SSH_AUTH_SOCK that is a symbolic link
// to the agent's socket elsewhere leads nowhere from the jail, through
// the link or the socket's own name, and the variable itself is gone.
func TestJailSSHAgentThroughLink(t *testing.T) {
	e := newJailEnv(t)
	// in the real home dir: not a scratch tree, not /run, whose sockets
	// the jail hides anyway; only the link's target being hidden helps
	realHome, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp(realHome, ".sandbox-test-ssh-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	sock := filepath.Join(base, "ssh-XXXX", "agent.42")
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("SSH-AGENT"))
			c.Close()
		}
	}()
	link := filepath.Join(base, "home-link", "agent.sock")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(sock, link); err != nil {
		t.Fatal(err)
	}
	cases := []probeCase{{"link", "unix", []string{link}}, {"socket", "unix", []string{sock}}, {"env", "env", nil}}
	// Landlock (ABI 7) has no right for connecting to a pathname socket:
	// only the mount namespace can put something else at its name
	m := jailModes[0]
	o := e.options(m, e.batchArgv(cases)...)
	o.Env = append(o.Env, "SSH_AUTH_SOCK="+link)
	out, _ := runJailed(t, o)
	got := batchResults(t, out, len(cases))
	for i, c := range cases[:2] {
		if got[i] == "ok" {
			t.Errorf("%s: the jail reached the ssh-agent socket through %s", c.name, c.args[0])
		}
	}
	if strings.Contains(got[2], "SSH_AUTH_SOCK") {
		t.Errorf("the jail's environment holds SSH_AUTH_SOCK: %s", got[2])
	}
}

// TestJailEnvScrubbed: the jail's environment holds no token, key,
// password or socket that leads out, but keeps the agent's own key and
// what the policy keeps, and drops what the policy adds.
func TestJailEnvScrubbed(t *testing.T) {
	e := newJailEnv(t)
	home := fakeHome(t)
	cases := []probeCase{{"env", "env", nil}}
	o := e.options(jailModes[0], e.batchArgv(cases)...)
	o.Agent = "claude"
	o.Env = append(withHome(o.Env, home),
		"GITHUB_TOKEN=SECRET1", "NPM_TOKEN=SECRET2", "AWS_SECRET_ACCESS_KEY=SECRET3", "AWS_ACCESS_KEY_ID=SECRET4",
		"OPENAI_API_KEY=SECRET5", "PGPASSWORD=SECRET6", "npm_config__authToken=SECRET7", "DB_PASSWORD=SECRET8",
		"GOOGLE_APPLICATION_CREDENTIALS=SECRET9", "DATABASE_URL=SECRET10",
		"TMUX=/tmp/tmux-0/default,1,0", "TMUX_PANE=%1", "STY=1.pts", "DISPLAY=:0", "WAYLAND_DISPLAY=wayland-0",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/0/bus", "VSCODE_IPC_HOOK_CLI=/tmp/vscode.sock",
		"GIT_ASKPASS=/x/askpass", "XAUTHORITY=/x/.Xauthority", "KRB5CCNAME=FILE:/tmp/krb5cc_0",
		"ANTHROPIC_API_KEY=agent-key", "DEPLOY_TOKEN=kept-by-policy", "EDITOR=vi")
	o.EnvKeep = []string{"DEPLOY_TOKEN"}
	o.EnvDrop = []string{"DATABASE_URL"}
	out, _ := runJailed(t, o)
	env := batchResults(t, out, 1)[0]
	if strings.Contains(env, "SECRET") {
		t.Errorf("a secret reached the jail: %s", env)
	}
	for _, name := range []string{"TMUX=", "TMUX_PANE", "STY=", "DISPLAY=", "DBUS_SESSION", "VSCODE_IPC", "GIT_ASKPASS",
		"XAUTHORITY", "KRB5CCNAME"} {
		if strings.Contains(env, " "+name) {
			t.Errorf("%s reached the jail", name)
		}
	}
	for _, want := range []string{"ANTHROPIC_API_KEY=agent-key", "DEPLOY_TOKEN=kept-by-policy", "EDITOR=vi", "HOME=" + home} {
		if !strings.Contains(env, " "+want) {
			t.Errorf("%s is missing from the jail's environment", want)
		}
	}
}

// claudeHome is a home directory with Claude Code's configuration: its
// settings, its global config, a session it keeps, and its executable
// (a link to this test binary in a writable cache dir).
func claudeHome(t *testing.T, e *testJail) (home, exe string) {
	t.Helper()
	home = fakeHome(t)
	mustWrite(t, filepath.Join(home, ".claude", "settings.json"), `{"model":"original"}`)
	mustWrite(t, filepath.Join(home, ".claude", "projects", "p", "s.jsonl"), "{}\n")
	mustWrite(t, filepath.Join(home, ".cache", "claude", "cached"), "x")
	mustWrite(t, filepath.Join(home, ".claude.json"), `{"numStartups": 1, "theme": "dark", "mcpServers": {"mine": {"command": "/bin/mine"}}}`)
	exe = filepath.Join(home, ".cache", "claude", "bin", "claude")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.probe, exe); err != nil {
		t.Fatal(err)
	}
	return home, exe
}

// TestJailAgentConfigReadOnly: Claude Code's settings (hooks), its
// command, hook and plugin dirs (created when missing, so that the jail
// cannot create them), its backups and the directory of its executable
// are read-only in the jail, while its sessions and caches stay
// writable; its global config is a per-run copy, of which only what
// cannot run code is merged back: a planted MCP server never reaches
// the real ~/.claude.json, the harmless counter does.
func TestJailAgentConfigReadOnly(t *testing.T) {
	e := newJailEnv(t)
	planted := `{"numStartups": 42, "theme": "light", "mcpServers": {"evil": {"command": "/tmp/evil"}},` +
		`"projects": {"/p": {"lastCost": 3, "mcpServers": {"evil": {"command": "/tmp/evil"}}, "hasTrustDialogAccepted": true}},` +
		`"newThing": {"hooks": {"x": 1}}}`
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			home, exe := claudeHome(t, e)
			t.Setenv("HOME", home) // the jail's $HOME and this process's agree, as in a real run
			cl := func(rel string) string { return filepath.Join(home, rel) }
			tests := []struct {
				c      probeCase
				wantOK bool
			}{
				{probeCase{"settings", "write", []string{cl(".claude/settings.json")}}, false},
				{probeCase{"hooks dir", "write", []string{cl(".claude/hooks/pre.sh")}}, false},
				{probeCase{"commands dir", "write", []string{cl(".claude/commands/x.md")}}, false},
				{probeCase{"plugins dir", "write", []string{cl(".claude/plugins/x.json")}}, false},
				{probeCase{"local binary", "write", []string{cl(".claude/local/claude")}}, false},
				{probeCase{"backup", "write", []string{cl(".claude.json.backup")}}, false},
				{probeCase{"binary dir", "write", []string{filepath.Join(filepath.Dir(exe), "claude-next")}}, false},
				{probeCase{"session", "write", []string{cl(".claude/projects/p/s.jsonl")}}, true},
				{probeCase{"cache file", "write", []string{cl(".cache/claude/cached")}}, true},
				// Landlock alone cannot let files be created in a directory
				// that holds a read-only name (see jail_linux's carve)
				{probeCase{"history", "write", []string{cl(".claude/history.jsonl")}}, m.name == "namespaces"},
				{probeCase{"cache", "write", []string{cl(".cache/claude/other")}}, m.name == "namespaces"},
				{probeCase{"global config", "writeplanted", []string{cl(".claude.json"), planted}}, m.name == "namespaces"},
			}
			cases := make([]probeCase, len(tests))
			for i, tc := range tests {
				cases[i] = tc.c
			}
			argv := e.batchArgv(cases)
			argv[0] = exe
			o := e.options(m, argv...)
			o.Agent = "claude"
			o.Env = withHome(o.Env, home)
			out, _ := runJailed(t, o)
			got := batchResults(t, out, len(cases))
			for i, tc := range tests {
				if (got[i] == "ok") != tc.wantOK {
					t.Errorf("%s: write %s: %s, want ok=%v", tc.c.name, tc.c.args[0], got[i], tc.wantOK)
				}
			}
			if b, _ := os.ReadFile(cl(".claude/settings.json")); string(b) != `{"model":"original"}` {
				t.Errorf("settings.json changed: %s", b)
			}
			b, err := os.ReadFile(cl(".claude.json"))
			if err != nil {
				t.Fatal(err)
			}
			g := string(b)
			if strings.Contains(g, "evil") || strings.Contains(g, "hasTrustDialogAccepted") || strings.Contains(g, `"x"`) {
				t.Errorf("~/.claude.json took what runs code from the jail:\n%s", g)
			}
			if !strings.Contains(g, "/bin/mine") {
				t.Errorf("~/.claude.json lost the user's own MCP server:\n%s", g)
			}
			wantMerged := m.name == "namespaces"
			if merged := strings.Contains(g, `"numStartups": 42`) && strings.Contains(g, `"lastCost": 3`); merged != wantMerged {
				t.Errorf("harmless keys merged back = %v, want %v:\n%s", merged, wantMerged, g)
			}
			if runs, _ := os.ReadDir(filepath.Join(e.state, "runs")); len(runs) != 0 {
				t.Errorf("the per-run copy was left behind: %v", runs)
			}
		})
	}
}
