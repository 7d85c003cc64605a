package launcher

import (
	"path/filepath"
	"strings"
)

// HomeSecrets are the home-relative files and trees the jail never sees,
// whatever the policy says: keys, cloud, cluster and registry
// credentials, password stores and shell histories (which hold the
// secrets typed on command lines). Each is an empty, unreadable mount in
// the jail; missing ones are skipped.
var HomeSecrets = []string{
	".ssh", ".gnupg", ".password-store", ".local/share/keyrings", ".pki",
	".aws", ".azure", ".config/gcloud", ".kube", ".oci", ".config/doctl",
	".docker/config.json", ".config/containers/auth.json",
	".netrc", ".git-credentials", ".config/git/credentials", ".config/gh", ".config/hub",
	".npmrc", ".pypirc", ".gem/credentials", ".cargo/credentials",
	".cargo/credentials.toml", ".terraform.d/credentials.tfrc.json", ".vault-token",
	".config/op", ".s3cfg", ".boto", ".config/rclone",
	".bash_history", ".zsh_history", ".zhistory", ".histfile", ".sh_history",
	".local/share/fish/fish_history", ".python_history", ".node_repl_history",
	".psql_history", ".mysql_history", ".sqlite_history", ".irb_history",
}

// readRulePaths turns the read policy's deny and escalate patterns into
// the paths they name, where a pattern names concrete paths: "~/x",
// "/x" and "dir/x" (project-relative), with an optional trailing "/" or
// "/**" for a whole tree, and '*', '?' or '[...]' within names (expanded
// against what exists now). Patterns with "**" inside, or without a '/'
// (a name matched anywhere in the project), name no fixed place and stay
// with the analyzer.
func readRulePaths(patterns []string, root, home string) []string {
	var out []string
	for _, pat := range patterns {
		p, ok := concretePattern(pat, root, home)
		if !ok {
			continue
		}
		if !strings.ContainsAny(p, "*?[") {
			out = append(out, p)
			continue
		}
		matches, _ := filepath.Glob(p)
		out = append(out, matches...)
	}
	return out
}

// concretePattern is pat as an absolute path glob without "**", if it is
// one.
func concretePattern(pat, root, home string) (string, bool) {
	pat = strings.TrimSuffix(strings.TrimSuffix(pat, "/**"), "/")
	for _, seg := range strings.Split(pat, "/") {
		if seg == ".." {
			return "", false
		}
	}
	switch {
	case pat == "" || pat == "~" || strings.Contains(pat, "**") || strings.Contains(pat, `\`):
		return "", false
	case strings.HasPrefix(pat, "~/"):
		if home == "" {
			return "", false
		}
		pat = filepath.Join(home, pat[2:])
	case strings.HasPrefix(pat, "/"):
	case !strings.Contains(pat, "/") || root == "":
		return "", false
	default:
		pat = filepath.Join(root, pat)
	}
	return filepath.Clean(pat), true
}
