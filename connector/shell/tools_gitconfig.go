package shell

import "strings"

// safeGitConfigKeys are configuration keys that `git -c` may set without a
// human: none of them names a program, a hook, a helper or another
// repository. Agents use them to get stable, uncoloured output (Claude
// Code runs `git -c core.quotepath=false ...`). The value is free text
// except where safeGitConfigValues pins it.
var safeGitConfigKeys = map[string]bool{
	"core.quotepath": true, "core.abbrev": true, "core.untrackedcache": true,
	"core.preloadindex": true, "core.hookspath": true, "core.fsmonitor": true,
	"color.ui": true, "log.showsignature": true, "log.decorate": true,
	"diff.noprefix": true, "diff.mnemonicprefix": true, "diff.relative": true,
	"diff.renames": true, "status.showuntrackedfiles": true, "index.threads": true,
	"gc.auto": true, "maintenance.auto": true, "i18n.logoutputencoding": true,
	"advice.detachedhead": true, "init.defaultbranch": true,
}

// safeGitConfigValues pins the only value a key may take: hooks may only
// be switched off, and so may the file-system monitor (which runs a
// program when set to a path).
var safeGitConfigValues = map[string]string{
	"core.hookspath": "/dev/null",
	"core.fsmonitor": "false",
}

// safeGitConfig reports whether `git -c KEY[=VALUE]` is harmless. Color
// keys (color.*) are colour names only; every other key must be listed.
func safeGitConfig(kv string) bool {
	key, val, _ := strings.Cut(kv, "=")
	key = strings.ToLower(key)
	if want, pinned := safeGitConfigValues[key]; pinned {
		return val == want
	}
	if strings.HasPrefix(key, "color.") && !strings.Contains(key[len("color."):], ".") {
		return true
	}
	return safeGitConfigKeys[key]
}

// gitQuietFlags are global flags that change nothing a rule is about
// (locking, paging off, advice), left out of the argv the rules see.
var gitQuietFlags = map[string]bool{
	"--no-optional-locks": true, "--no-pager": true, "-P": true, "--no-advice": true,
	"--literal-pathspecs": true, "--no-replace-objects": true,
}

// policyArgs is the argv the policy matches its rules against: the real
// argv, except that for git the harmless `-c KEY=VALUE` settings in front
// of the subcommand are left out, so that `git -c core.quotepath=false
// status` meets the rules for `git status`. gitTool still checks every -c
// of the real argv (any other key escalates).
func policyArgs(key string, argv []Word) []Word {
	if key != "git" {
		return argv
	}
	out := argv[:1:1]
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a.Dynamic || !strings.HasPrefix(a.Text, "-"):
			return append(out, argv[i:]...)
		case a.Text == "-c" && i+1 < len(argv) && !argv[i+1].Dynamic && safeGitConfig(argv[i+1].Text):
			i++
		case strings.HasPrefix(a.Text, "-c") && len(a.Text) > 2 && safeGitConfig(a.Text[2:]):
		case gitQuietFlags[a.Text]:
		default:
			out = append(out, a)
		}
	}
	return out
}
