package broker

import (
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
func GrantFor(parts []policy.Part, home string, env []string) Grant {
	var g Grant
	for _, p := range parts {
		if p.Trigger == policy.Shell {
			g.gitUse(commandWords(p.Subject))
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
			g.tool(commandWords(p.Subject), home, env)
		}
	}
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
	case "curl", "wget":
		if g.Net != NetHosts {
			g.allNetwork() // a destination the analyzer could not read
		}
	}
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
// two words, which is all a grant looks at.
func commandWords(subject string) []string {
	var words []string
	for len(words) < 2 {
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
