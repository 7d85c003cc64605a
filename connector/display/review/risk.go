package review

import (
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/policy"
)

// Risk is what a rule hit can do, most dangerous first: the order in which
// an approver lists the hits that need a human.
type Risk int

const (
	// RunsProgram: runs code that is not on the screen (a shell or an
	// interpreter reading a script or stdin, eval, a package's install
	// scripts, a program from a file).
	RunsProgram Risk = iota
	// Network: leaves the machine.
	Network
	// Privilege: sudo, su, doas and friends, setuid bits.
	Privilege
	// WritesOutside: writes outside the project.
	WritesOutside
	// ReadsSecret: reads a file the policy keeps from the agent.
	ReadsSecret
	// Other: every other hit that needs a human.
	Other
	// Allowed: a part the policy allows (listed last).
	Allowed
)

var riskNames = [...]string{"runs a program", "network", "privilege", "writes outside", "reads a secret", "other", "allowed"}

func (r Risk) String() string {
	if r < 0 || int(r) >= len(riskNames) {
		return "other"
	}
	return riskNames[r]
}

// MarshalText names the risk.
func (r Risk) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a risk's name (an unknown one is Other).
func (r *Risk) UnmarshalText(b []byte) error {
	*r = Other
	for i, n := range riskNames {
		if n == string(b) {
			*r = Risk(i)
		}
	}
	return nil
}

// Word lists for shell parts, by the command's name (its base name, after
// the privilege wrappers that the policy splits off as parts of their own).
var (
	runners = set("sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox",
		"eval", "source", ".", "exec", "xargs", "parallel", "nohup", "setsid", "watch",
		"python", "python2", "python3", "pypy", "pypy3", "perl", "ruby", "node", "nodejs", "deno", "bun",
		"php", "lua", "luajit", "tclsh", "wish", "Rscript", "julia", "osascript", "powershell", "pwsh",
		"npx", "pnpx", "bunx", "make", "gmake", "ninja", "just", "task", "rake",
		"gdb", "lldb", "strace", "ltrace", "expect", "script")
	// package managers and build tools: these subcommands run code the
	// package or the project ships (install scripts, build scripts, tests).
	runSubcommands = map[string][]string{
		"npm":  {"install", "i", "ci", "add", "run", "run-script", "exec", "x", "test", "t", "start", "restart", "rebuild", "explore"},
		"yarn": {"", "install", "add", "run", "exec", "dlx", "test", "start"}, "pnpm": {"install", "i", "add", "run", "exec", "dlx", "test", "start"},
		"pip": {"install"}, "pip3": {"install"}, "pipx": {"run", "install"}, "uv": {"run", "pip", "tool"}, "poetry": {"run", "install"},
		"go": {"run", "generate", "test", "build", "install", "vet", "tool"}, "cargo": {"run", "build", "test", "install", "bench"},
		"docker": {"run", "exec", "build", "compose"}, "podman": {"run", "exec", "build"},
		"git":    {"commit", "push", "pull", "merge", "rebase", "checkout", "switch", "am", "filter-branch", "submodule", "-c"},
		"gradle": {""}, "mvn": {""}, "cmake": {"--build"}, "dotnet": {"run", "test", "build"},
	}
	networkers = set("curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet",
		"ftp", "tftp", "http", "https", "xh", "gh", "aws", "gcloud", "gsutil", "az", "kubectl", "helm", "ping",
		"dig", "nslookup", "host", "aria2c", "lftp", "mosh")
	netSubcommands = map[string][]string{
		"git":  {"push", "pull", "fetch", "clone", "ls-remote", "submodule", "remote", "send-email"},
		"npm":  {"install", "i", "ci", "add", "publish", "login", "adduser", "update"},
		"yarn": {"", "install", "add", "publish", "npm"}, "pnpm": {"install", "i", "add", "publish"},
		"pip": {"install", "download"}, "pip3": {"install", "download"}, "go": {"get", "install", "mod"},
		"cargo": {"install", "publish", "fetch"}, "docker": {"push", "pull", "login"}, "podman": {"push", "pull", "login"},
		"gem": {"install", "push"}, "twine": {"upload"},
	}
	elevators = set("sudo", "su", "doas", "pkexec", "runuser", "setpriv", "chroot", "nsenter", "unshare", "capsh",
		"setcap", "machinectl", "systemd-run", "run0")
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// destroyers delete or overwrite data; among hits of the same risk they
// come first.
var destroyers = set("rm", "rmdir", "shred", "dd", "mkfs", "truncate", "wipefs", "mv", "unlink", "srm")

// Destroys reports whether part deletes or overwrites data (rm -rf,
// git reset --hard, find -delete, ...).
func Destroys(p policy.Part) bool {
	if p.Trigger != policy.Shell {
		return false
	}
	words := fields(p.Subject)
	if len(words) == 0 {
		return false
	}
	name := filepath.Base(words[0])
	switch {
	case destroyers[name], strings.HasPrefix(name, "mkfs."):
		return true
	case name == "git" && len(words) > 1 && (words[1] == "reset" || words[1] == "clean" || words[1] == "checkout" || words[1] == "restore"):
		return true
	case name == "find" && (strings.Contains(p.Subject, " -delete") || strings.Contains(p.Subject, " -exec rm")):
		return true
	}
	return false
}

// Classify returns every risk of part, most dangerous first; Other when
// none applies, Allowed when the policy allows it. root is the project.
func Classify(p policy.Part, root string) []Risk {
	if p.Decision == policy.Allow {
		return []Risk{Allowed}
	}
	var out []Risk
	switch p.Trigger {
	case policy.Network:
		out = append(out, Network)
	case policy.Read:
		if !inside(p.Subject, root) || secretName(p.Subject) {
			out = append(out, ReadsSecret)
		}
	case policy.Write:
		if !inside(p.Subject, root) {
			out = append(out, WritesOutside)
		}
		if codeBearing(p.Subject) {
			out = append(out, RunsProgram)
		}
	case policy.Shell:
		out = shellRisks(p)
	case policy.MCP:
		out = append(out, RunsProgram)
	}
	if len(out) == 0 {
		return []Risk{Other}
	}
	return sortRisks(out)
}

func shellRisks(p policy.Part) []Risk {
	words := fields(p.Subject)
	if len(words) == 0 {
		return nil
	}
	name := filepath.Base(words[0])
	sub := ""
	if len(words) > 1 {
		sub = words[1]
	}
	var out []Risk
	if runners[name] || strings.Contains(words[0], "/") || p.Rule == "builtin:opaque" || hasSub(runSubcommands, name, sub) {
		out = append(out, RunsProgram)
	}
	if networkers[name] || hasSub(netSubcommands, name, sub) || strings.Contains(p.Subject, "://") {
		out = append(out, Network)
	}
	if elevators[name] || setuid(name, words[1:]) {
		out = append(out, Privilege)
	}
	if elevators[name] && len(out) == 1 && runsUnder(words[1:]) {
		out = append(out, RunsProgram) // sudo bash, su -c CMD
	}
	return out
}

// runsUnder reports whether a privilege wrapper's arguments start a shell
// or an interpreter, or pass a command string (-c).
func runsUnder(args []string) bool {
	for _, a := range args {
		if a == "-c" || runners[filepath.Base(a)] {
			return true
		}
	}
	return false
}

func hasSub(m map[string][]string, name, sub string) bool {
	for _, s := range m[name] {
		if s == sub || s == "" {
			return true
		}
	}
	return false
}

// setuid reports a chmod that sets the set-user-ID or set-group-ID bit,
// or a chown to root.
func setuid(name string, args []string) bool {
	for _, a := range args {
		switch {
		case name == "chmod" && !strings.HasPrefix(a, "-") && strings.ContainsAny(a, "+=") && strings.Contains(a, "s"):
			return true
		case name == "chmod" && len(a) == 4 && strings.Trim(a, "01234567") == "" && strings.ContainsAny(a[:1], "246"):
			return true
		case name == "chown" && (a == "root" || strings.HasPrefix(a, "root:") || a == "0" || strings.HasPrefix(a, "0:")):
			return true
		}
	}
	return false
}

// codeBearing names files whose content some tool later runs: git hooks
// and config, CI workflows, editor tasks, direnv, shell start-up files,
// agent settings.
func codeBearing(path string) bool {
	p := filepath.ToSlash(path)
	for _, s := range []string{"/.git/", "/.github/workflows/", "/.gitlab-ci", "/.vscode/", "/.idea/", "/.claude/", "/.codex/",
		"/.cursor/", "/.gemini/", "/.envrc", "/.bashrc", "/.profile", "/.zshrc", "/.bash_profile", "/Makefile", "/package.json", "/.husky/"} {
		if strings.Contains(p, s) || strings.HasSuffix(p, strings.TrimSuffix(s, "/")) {
			return true
		}
	}
	return false
}

// secretName names files that usually hold credentials.
func secretName(path string) bool {
	b := strings.ToLower(filepath.Base(path))
	for _, s := range []string{".env", ".pem", ".key", "id_rsa", "id_ed25519", "id_ecdsa", ".netrc", ".npmrc", ".pypirc",
		"credentials", "secret", "token", ".p12", ".pfx", ".kdbx", "_history"} {
		if strings.Contains(b, s) {
			return true
		}
	}
	return false
}

func inside(path, root string) bool {
	if root == "" || !filepath.IsAbs(path) {
		return true
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func sortRisks(rs []Risk) []Risk {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j] < rs[j-1]; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	out := rs[:0]
	for i, r := range rs {
		if i == 0 || r != rs[i-1] {
			out = append(out, r)
		}
	}
	return out
}

// fields splits a part's subject (the policy quotes arguments POSIX-style)
// into words, enough to find the command's name and first argument.
func fields(s string) []string {
	var out []string
	var b strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			b.WriteByte(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				out = append(out, b.String())
				b.Reset()
				inWord = false
			}
		default:
			b.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, b.String())
	}
	return out
}
