package broker

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/policy"
)

// GrantFor derives the grant of an approval from the policy's decision on
// what was approved: every escalated part names what it needs, and the
// grant is exactly that. home is the user's home directory and env the
// environment the command will receive (for the ssh-agent socket).
//
//   - a write outside the project: that path writable;
//   - a read the policy escalated (a secret): that path readable;
//   - a destination: the network, to those hosts only (through the proxy);
//   - a tool whose need is the network and the user's credentials (git's
//     remote commands, ssh, npm publish, gh): the whole network (their
//     destinations are not known statically) and the credentials that
//     tool reads, named in Credentials;
//   - anything else (sudo, an unknown program): nothing beyond the project
//     jail; if it needs more it fails in the jail instead of running with
//     the user's rights.
//
// Denied and allowed parts add nothing: a denied part is never approved,
// and what the policy allows is what the project jail already permits.
//
// A push to a remote that is a local path (the remote's URL in the
// project's repository, or the path given) also grants writing that
// repository; Describe shows it, so the human sees where the push writes.
func GrantFor(parts []policy.Part, root, home string, env []string) Grant {
	var g Grant
	for _, p := range parts {
		if p.Trigger == policy.Shell {
			g.gitUse(commandWords(p.Subject, 2))
		}
		if p.Decision != policy.Escalate {
			continue
		}
		switch p.Trigger {
		case policy.Write:
			if filepath.IsAbs(p.Subject) {
				g.Write = addUnique(g.Write, filepath.Clean(p.Subject))
			}
		case policy.Read:
			if filepath.IsAbs(p.Subject) {
				g.Read = addUnique(g.Read, filepath.Clean(p.Subject))
			}
		case policy.Network:
			if g.Net != NetAll && p.Subject != "" && !strings.ContainsAny(p.Subject, "$`*? ") {
				g.Net = NetHosts
				g.Hosts = addUnique(g.Hosts, p.Subject)
			} else {
				g.allNetwork()
			}
		case policy.Shell:
			words := commandWords(p.Subject, 64)
			if local := g.localRemote(words, root, env); !local {
				g.tool(words, home, env)
			}
		}
	}
	if g.fetcher && g.Net == NetNone {
		g.allNetwork() // curl or wget to a destination the analyzer could not read
	}
	g.fetcher = false
	return g
}

// gitUse notes that the command runs git, on the project's repository
// unless it makes a new one.
func (g *Grant) gitUse(words []string) {
	if len(words) == 0 || filepath.Base(words[0]) != "git" {
		return
	}
	if len(words) > 1 && (words[1] == "clone" || words[1] == "init") {
		g.Git = GitNew
	} else if g.Git == GitNone {
		g.Git = GitRepo
	}
}

func (g *Grant) allNetwork() {
	g.Net, g.Hosts = NetAll, nil
}

// tool adds what a known networked tool needs to authenticate.
func (g *Grant) tool(words []string, home string, env []string) {
	if len(words) == 0 {
		return
	}
	name, sub := filepath.Base(words[0]), ""
	if len(words) > 1 {
		sub = words[1]
	}
	switch name {
	case "git":
		switch sub {
		case "push", "fetch", "pull", "clone", "ls-remote", "remote", "submodule":
			g.allNetwork()
			g.ssh(home, env)
			g.credential("git credentials", home, ".git-credentials", ".config/git/credentials")
		}
	case "ssh", "scp", "sftp", "rsync":
		g.allNetwork()
		g.ssh(home, env)
	case "npm", "pnpm", "yarn", "npx":
		g.allNetwork()
		g.credential("npm registry token", home, ".npmrc", ".yarnrc", ".yarnrc.yml")
	case "gh":
		g.allNetwork()
		g.credential("GitHub CLI token", home, ".config/gh")
	case "pip", "pip3", "uv", "cargo", "gem", "bundle":
		g.allNetwork() // package registries: destinations not known in advance
	case "go":
		switch sub {
		case "get", "install", "mod", "run", "build", "test":
			g.allNetwork() // the module proxy, or the modules' own hosts
		}
	case "curl", "wget":
		g.fetcher = true // hosts come from the network parts; see GrantFor
	}
}

// localRemote reports whether a git command that talks to a remote
// (push, fetch, pull, ls-remote) talks to a repository on this machine,
// and grants writing it for a push. Such a command needs neither the
// network nor the user's credentials, and must not get them: git's local
// transport runs the receiving repository's own hooks in a child that
// drops the command-line settings that switch hooks off, and an
// in-project remote's hooks are the agent's to write.
func (g *Grant) localRemote(words []string, root string, env []string) bool {
	if len(words) < 2 || filepath.Base(words[0]) != "git" || root == "" {
		return false
	}
	switch words[1] {
	case "push", "fetch", "pull", "ls-remote":
	default:
		return false
	}
	remote := "origin"
	for _, w := range words[2:] {
		if !strings.HasPrefix(w, "-") {
			remote = w
			break
		}
	}
	url := remote
	if !strings.ContainsAny(remote, "/:") {
		url = repoConfig(root, env, "remote."+remote+".pushurl")
		if url == "" {
			url = repoConfig(root, env, "remote."+remote+".url")
		}
	}
	url = strings.TrimPrefix(url, "file://")
	if url == "" || strings.Contains(url, ":") {
		return false // a network remote, or none
	}
	if !filepath.IsAbs(url) {
		url = filepath.Join(root, url)
	}
	fi, err := os.Stat(url)
	if err != nil || !fi.IsDir() { // an existing repository, never a file to create
		return false
	}
	if words[1] == "push" {
		g.Write = addUnique(g.Write, filepath.Clean(url))
	}
	return true
}

// ssh grants the user's ssh keys and agent.
func (g *Grant) ssh(home string, env []string) {
	g.credential("ssh keys (~/.ssh)", home, ".ssh")
	if sock := getenv(env, "SSH_AUTH_SOCK"); filepath.IsAbs(sock) {
		g.Read = addUnique(g.Read, filepath.Clean(sock))
		g.Credentials = addUnique(g.Credentials, "ssh-agent ("+sock+")")
	}
}

func (g *Grant) credential(label, home string, rels ...string) {
	if home == "" {
		return
	}
	for _, rel := range rels {
		g.Read = addUnique(g.Read, filepath.Join(home, rel))
	}
	g.Credentials = addUnique(g.Credentials, label)
}

// commandWords splits a part's subject (an argv as the policy quotes it:
// words separated by spaces, single-quoted when needed) into its first
// max words.
func commandWords(subject string, max int) []string {
	var words []string
	for len(words) < max {
		subject = strings.TrimLeft(subject, " ")
		if subject == "" {
			break
		}
		var w string
		if subject[0] == '\'' {
			end := strings.IndexByte(subject[1:], '\'')
			if end < 0 {
				break
			}
			w, subject = subject[1:1+end], subject[2+end:]
		} else {
			i := strings.IndexByte(subject, ' ')
			if i < 0 {
				i = len(subject)
			}
			w, subject = subject[:i], subject[i:]
		}
		words = append(words, w)
	}
	return words
}
