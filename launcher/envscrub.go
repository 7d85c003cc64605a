package launcher

import (
	"path/filepath"
	"slices"
	"strings"
)

// DefaultEnvDrop are the patterns of the variables the jail never gets
// unless the policy keeps them (run: env: keep): the ways out of the jail
// (terminal multiplexers, display servers, session buses, agents and
// askpass helpers, IDE sockets) and what looks like a secret. A pattern is
// a name with '*' for any run of characters, compared without regard to
// case: npm reads its registry token from npm_config_..._authToken.
var DefaultEnvDrop = []string{
	// sockets and helpers that run something outside the jail
	"TMUX", "TMUX_*", "STY", "DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET",
	"DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "SSH_AUTH_SOCK", "SSH_AGENT_PID",
	"GPG_AGENT_INFO", "GNOME_KEYRING_CONTROL", "VSCODE_IPC_HOOK*", "VSCODE_GIT_IPC_HANDLE",
	"VSCODE_GIT_ASKPASS_*", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "DOCKER_HOST",
	"KRB5CCNAME", "KITTY_LISTEN_ON", "WEZTERM_UNIX_SOCKET", "NVIM", "NVIM_LISTEN_ADDRESS",
	"JETBRAINS_REMOTE_*", "SANDBOX_JAIL_INIT",
	// secrets
	"*TOKEN", "*_KEY", "*_KEYS", "*APIKEY", "*SECRET", "*_SECRET_*", "*PASSWORD", "*PASSWD",
	"*_PASS", "*_PWD", "*_CREDENTIALS", "*_CREDENTIAL", "*_AUTH", "*_COOKIE",
	"*_PAT", "*_DSN", "*_AUTH_CONFIG",
	"AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_CONTAINER_*",
	"AWS_WEB_IDENTITY_TOKEN_FILE", "AZURE_CLIENT_*", "GOOGLE_APPLICATION_CREDENTIALS",
	"VAULT_*", "OP_SESSION_*", "NETRC",
}

// EnvRules says which variables of the base environment reach the jail:
// those matching Drop (DefaultEnvDrop plus the policy's own) are removed,
// unless they match Keep (the agent's own key, the policy's keep list).
type EnvRules struct {
	Keep []string
	Drop []string
}

// envRules are o's rules: the defaults, the agent's key, the options'.
func envRules(o *Options) EnvRules {
	r := EnvRules{
		Keep: append(slices.Clone(agentProfile(agentName(o)).Keys), o.EnvKeep...),
		Drop: append(slices.Clone(DefaultEnvDrop), o.EnvDrop...),
	}
	return r
}

// envMatcher is EnvRules with each pattern compiled once: a jail's start
// matched every variable against every pattern with filepath.Match and
// strings.ToUpper (~70 patterns by 50-100 variables, 8% of the
// supervisor's CPU in BenchmarkRunTrue).
type envMatcher struct{ keep, drop []envPattern }

func (r EnvRules) compile() envMatcher {
	return envMatcher{keep: compileEnv(r.Keep), drop: compileEnv(r.Drop)}
}

func (m envMatcher) dropped(k, v string) bool {
	k = strings.ToUpper(k)
	return (matchAny(m.drop, k) || urlPassword(v)) && !matchAny(m.keep, k)
}

// envPattern is one pattern, upper-cased and split at its '*'s; one with
// any other of filepath.Match's special characters (the policy refuses
// them) keeps its text for filepath.Match.
type envPattern struct {
	parts []string
	glob  string
}

func compileEnv(pats []string) []envPattern {
	out := make([]envPattern, 0, len(pats))
	for _, p := range pats {
		p = strings.ToUpper(p)
		if strings.ContainsAny(p, `?[\/`) {
			out = append(out, envPattern{glob: p})
			continue
		}
		out = append(out, envPattern{parts: strings.Split(p, "*")})
	}
	return out
}

// match reports whether the upper-cased name matches, as filepath.Match
// would.
func (p envPattern) match(name string) bool {
	if p.parts == nil || strings.ContainsRune(name, '/') { // '*' does not cross a '/' in filepath.Match
		ok, _ := filepath.Match(p.glob+strings.Join(p.parts, "*"), name)
		return ok
	}
	first, last := p.parts[0], p.parts[len(p.parts)-1]
	if len(p.parts) == 1 {
		return name == first
	}
	if !strings.HasPrefix(name, first) {
		return false
	}
	name = name[len(first):]
	for _, mid := range p.parts[1 : len(p.parts)-1] {
		i := strings.Index(name, mid)
		if i < 0 {
			return false
		}
		name = name[i+len(mid):]
	}
	return strings.HasSuffix(name, last)
}

func matchAny(pats []envPattern, upperName string) bool {
	for _, p := range pats {
		if p.match(upperName) {
			return true
		}
	}
	return false
}

// urlPassword reports whether v holds a URL whose authority carries a
// password (scheme://user:password@host), anywhere in it (lists too).
func urlPassword(v string) bool {
	for {
		i := strings.Index(v, "://")
		if i < 0 {
			return false
		}
		v = v[i+3:]
		auth := v
		if j := strings.IndexAny(auth, "/?#,; \t"); j >= 0 {
			auth = auth[:j]
		}
		if at := strings.LastIndexByte(auth, '@'); at >= 0 && strings.Contains(auth[:at], ":") {
			return true
		}
	}
}

// matchEnv reports whether name matches one of pats, ignoring case.
func matchEnv(pats []string, name string) bool {
	return matchAny(compileEnv(pats), strings.ToUpper(name))
}

// ScrubbedEnv splits env by rules: what the jail gets, and the names of
// the variables it does not get.
func ScrubbedEnv(env []string, r EnvRules) (kept []string, dropped []string) {
	kept = make([]string, 0, len(env))
	m := r.compile()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if m.dropped(k, v) {
			dropped = append(dropped, k)
			continue
		}
		kept = append(kept, kv)
	}
	return kept, dropped
}

// PassedKeys are the names in env that a drop pattern matches but the
// keep list lets through (the agent's own API key): what `sandbox run -v`
// and doctor name.
func PassedKeys(env []string, r EnvRules) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if matchEnv(r.Drop, k) && matchEnv(r.Keep, k) {
			out = append(out, k)
		}
	}
	return out
}
