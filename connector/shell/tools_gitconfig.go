package shell

import "strings"

// safeGitConfigKeys are configuration keys that `git -c` may set to any
// value without a human: none of them names a program, a hook, a helper
// or another repository. Agents use them to get stable, uncoloured output
// (Claude Code runs `git -c core.quotepath=false ...`).
var safeGitConfigKeys = map[string]bool{
	"core.quotepath": true, "core.abbrev": true, "core.untrackedcache": true,
	"core.preloadindex": true, "color.ui": true, "log.showsignature": true, "log.decorate": true,
	"diff.noprefix": true, "diff.mnemonicprefix": true, "diff.relative": true,
	"diff.renames": true, "diff.autorefreshindex": true, "status.showuntrackedfiles": true,
	"index.threads": true, "gc.auto": true, "maintenance.auto": true,
	"i18n.logoutputencoding": true, "advice.detachedhead": true, "init.defaultbranch": true,
	"format.pretty": true,
}

// gitConfigHardening are keys that are harmless only with the one value
// (or kind of value) that switches something off. They are what agents
// set to make their own git calls safe in a hostile repository: Claude
// Code starts every git call with core.askPass=, protocol.ext.allow=never,
// hook.<event>.enabled=false, core.hooksPath=/dev/null, core.fsmonitor=
// and safe.bareRepository=explicit. Any other value of these keys can
// run a program (an askpass, a credential helper, a pager, a hook, the
// file-system monitor, a remote helper), so it escalates.
var gitConfigHardening = map[string]func(val string) bool{
	// empty: no askpass program from the configuration
	"core.askpass": isEmpty,
	// empty: the helpers configured so far are dropped, none is added
	"credential.helper": isEmpty,
	// empty or cat: no pager
	"core.pager":     func(v string) bool { return v == "" || v == "cat" },
	"core.hookspath": func(v string) bool { return v == "/dev/null" },
	// a path or a true value runs a monitor program or daemon
	"core.fsmonitor":            gitFalse,
	"submodule.recurse":         gitFalse,
	"core.ignorecase":           gitFalse,
	"safe.barerepository":       func(v string) bool { return v == "explicit" },
	"protocol.allow":            func(v string) bool { return v == "never" },
	"core.alternaterefscommand": gitDefaultAlternateRefs,
}

// safeGitConfig reports whether `git -c KEY[=VALUE]` is harmless. Without
// "=" git sets the key to true (`-c core.fsmonitor` turns the monitor
// on), which is how it is checked here. Key names are case-insensitive
// except for their middle part (hook.NAME.enabled), which no check here
// depends on.
func safeGitConfig(kv string) bool {
	key, val, hasVal := strings.Cut(kv, "=")
	if !hasVal {
		val = "true"
	}
	key = strings.ToLower(key)
	if ok, hardening := gitConfigHardening[key]; hardening {
		return ok(val)
	}
	section, rest, _ := strings.Cut(key, ".")
	sub, name, hasSub := cutLast(rest, ".")
	switch {
	case section == "color" && !hasSub:
		return true
	case section == "protocol" && hasSub && sub != "" && name == "allow":
		// protocol.<name>.allow=never forbids a transport; any other value
		// allows one (protocol.ext.allow=always runs a remote helper)
		return val == "never"
	case section == "hook" && hasSub && sub != "" && name == "enabled":
		// config-based hooks: switched off only
		return gitFalse(val)
	}
	return safeGitConfigKeys[key]
}

// cutLast splits s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return "", s, false
}

func isEmpty(v string) bool { return v == "" }

// gitFalse reports a value git reads as the boolean false (an empty value
// is false too: `-c core.fsmonitor=`).
func gitFalse(v string) bool {
	switch strings.ToLower(v) {
	case "", "false", "no", "off", "0":
		return true
	}
	return false
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
// status` meets the rules for `git status`, and a configuration read is
// spelled one way (gitConfigReadArgs). gitTool still checks every -c of
// the real argv (any other key escalates).
func policyArgs(key string, argv []Word) []Word {
	if key != "git" {
		return argv
	}
	out := argv[:1:1]
	i := 1
	for ; i < len(argv); i++ {
		a := argv[i]
		if a.Dynamic || !strings.HasPrefix(a.Text, "-") {
			break
		}
		switch {
		case a.Text == "-c" && i+1 < len(argv) && !argv[i+1].Dynamic && safeGitConfig(argv[i+1].Text):
			i++
		case strings.HasPrefix(a.Text, "-c") && len(a.Text) > 2 && safeGitConfig(a.Text[2:]):
		case gitQuietFlags[a.Text]:
		default:
			out = append(out, a)
		}
	}
	if i < len(argv) && !argv[i].Dynamic && argv[i].Text == "config" {
		return append(append(out, argv[i]), gitConfigReadArgs(argv[i+1:])...)
	}
	return append(out, argv[i:]...)
}

// gitConfigActions are git config's options that say what a read does.
var gitConfigActions = map[string]bool{
	"--get": true, "--get-all": true, "--get-regexp": true, "--get-urlmatch": true,
	"--list": true, "-l": true, "--get-color": true, "--get-colorbool": true,
}

// gitConfigReadArgs spells a configuration read one way for the rules:
// its action first (`git config --local -z --list` is matched as `git
// config --list --local -z`) and a lone name read as --get (`git config
// user.name` as `git config --get user.name`), as tools and agents write
// them (Claude Code lists the local configuration at start; go build asks
// for extensions.objectformat). Anything else, writes included (which the
// analyzer escalates whatever the rules say), is left as it is.
func gitConfigReadArgs(args []Word) []Word {
	g := parseGitArgs(args)
	if g.dynamic || gitConfigWrites(g) != "" {
		return args
	}
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		name, _, hasVal := strings.Cut(t, "=")
		switch {
		case args[i].Dynamic || t == "--":
			i = len(args)
		case !strings.HasPrefix(t, "-"):
		case gitConfigActions[name]:
			out := append([]Word{args[i]}, args[:i]...)
			return append(out, args[i+1:]...)
		case !hasVal && gitArgOpts[name]:
			i++
		}
	}
	if len(g.operands) == 1 && g.operands[0].Text != "list" {
		return append([]Word{{Text: "--get"}}, args...)
	}
	return args
}
