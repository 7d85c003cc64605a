package shell

import (
	"strings"
	"testing"
)

// claudeGitPrefix is the `-c` prefix Claude Code 2.1 puts before every
// git call of its own (captured from the shims' requests under `sandbox
// run`), so that a hostile repository's configuration cannot make its
// housekeeping run a program.
const claudeGitPrefix = `git -c core.askPass= -c protocol.ext.allow=never ` +
	`-c 'core.alternateRefsCommand=f() { git --git-dir="$1" for-each-ref --format='\''%(objectname)'\''; }; f' ` +
	`-c submodule.recurse=false -c log.showSignature=false -c format.pretty=medium -c gc.auto=0 ` +
	`-c maintenance.auto=false -c diff.autoRefreshIndex=false -c hook.pre-commit.enabled=false ` +
	`-c hook.post-checkout.enabled=false -c hook.fsmonitor-watchman.enabled=false ` +
	`-c core.hooksPath=/dev/null -c core.fsmonitor= -c safe.bareRepository=explicit ` +
	`-c protocol.file.allow=never `

// Settings that only switch things off are understood, and the rules see
// the bare subcommand: an agent hardening its own git calls is not asked
// about.
func TestGitConfigHardeningIsUnderstood(t *testing.T) {
	runEffectCases(t, []effectCase{
		{"claude's rev-parse", claudeGitPrefix + "-c core.ignorecase=false rev-parse --is-inside-work-tree --show-cdup",
			[]string{"exec git rev-parse --is-inside-work-tree --show-cdup"}},
		{"claude's log", claudeGitPrefix + "--no-optional-locks log --oneline -n 5", []string{"exec git log --oneline -n 5"}},
		{"claude's config list", claudeGitPrefix + "config --local --includes -z --list", []string{"exec git config --list --local --includes -z"}},
		{"claude's ls-files", "git -c core.hooksPath=/dev/null -c core.fsmonitor= -c safe.bareRepository=explicit -c protocol.file.allow=never ls-files --error-unmatch -- ':(icase).claude/settings.local.json'",
			[]string{"exec git ls-files --error-unmatch -- :(icase).claude/settings.local.json"}},
		{"askpass off", "git -c core.askpass= fetch --dry-run", []string{"exec git fetch --dry-run"}},
		{"pager off", "git -c core.pager=cat log", []string{"exec git log"}},
		{"pager empty", "git -c core.pager= log", []string{"exec git log"}},
		{"credential helpers dropped", "git -c credential.helper= status", []string{"exec git status"}},
		{"every protocol off", "git -c protocol.allow=never status", []string{"exec git status"}},
		{"fsmonitor false", "git -c core.fsmonitor=false status", []string{"exec git status"}},
		{"hook off, any case", "git -c hook.Pre-Commit.ENABLED=off status", []string{"exec git status"}},
		{"colour", "git -c color.diff=never diff", []string{"exec git diff"}},
		{"alternate refs, plain", `git -c 'core.alternateRefsCommand=git --git-dir="${1}" for-each-ref "--format=%(objectname)"' status`, []string{"exec git status"}},
	})
}

// Every setting that can make git run a program, reach another
// repository or read another configuration still escalates, whatever
// harmless settings stand around it.
func TestGitConfigThatRunsProgramsEscalates(t *testing.T) {
	bad := []string{
		`-c 'core.alternateRefsCommand=sh -c evil'`,
		`-c core.alternateRefsCommand=`,
		`-c 'core.alternateRefsCommand=f() { git --git-dir="$1" for-each-ref --format='\''%(objectname)'\''; }; f; id'`,
		`-c 'core.alternateRefsCommand=f() { git --git-dir="$1" for-each-ref --format='\''%(objectname)'\'' >/tmp/x; }; f'`,
		`-c 'core.alternateRefsCommand=f() { id; }; f'`,
		`-c 'core.alternateRefsCommand=f() { git --git-dir="$1" for-each-ref --format='\''%(objectname)'\''; }; g'`,
		`-c 'core.alternateRefsCommand=git --git-dir="$(id)" for-each-ref --format=%\(objectname\)'`,
		`-c 'core.alternateRefsCommand=git --git-dir=$1 for-each-ref --format=x --exec=y'`,
		`-c 'core.alternateRefsCommand=PATH=/tmp git --git-dir="$1" for-each-ref --format="%(objectname)"'`,
		`-c core.pager=less`, `-c 'core.pager=sh -c id'`, `-c core.pager`,
		`-c 'alias.x=!sh'`, `-c alias.st=status`,
		`-c core.sshCommand=ssh`, `-c core.sshCommand=`, `-c 'core.sshCommand=sh -c id'`,
		`-c core.fsmonitor`, `-c core.fsmonitor=true`, `-c core.fsmonitor=./monitor`,
		`-c protocol.ext.allow=always`, `-c protocol.ext.allow=user`, `-c protocol.allow=always`, `-c protocol.ext.allow`,
		`-c credential.helper=store`, `-c 'credential.helper=!sh -c id'`, `-c credential.https://x.helper=`,
		`-c include.path=/tmp/evil`, `-c includeIf.gitdir:/.path=/tmp/evil`,
		`-c core.askPass=/tmp/askpass`, `-c core.askPass`,
		`-c core.hooksPath=.git/h`, `-c hook.pre-commit.enabled=true`, `-c hook.pre-commit.enabled`,
		`-c hook.x.command=id`, `-c submodule.recurse=true`, `-c safe.bareRepository=all`,
		`-c safe.directory=*`, `-c core.editor=vi`, `-c diff.external=x`, `-c gpg.program=x`,
		`-c uploadpack.packObjectsHook=x`, `-c filter.x.clean=id`, `-c core.gitProxy=x`,
		`-c remote.origin.url=/tmp/x`, `-c url./tmp/x.insteadOf=origin`,
		`--config-env=core.askPass=EVIL`, `--config-env core.pager=EVIL`,
	}
	for _, opt := range bad {
		for _, script := range []string{"git " + opt + " status", claudeGitPrefix + opt + " log -n 1"} {
			t.Run(script, func(t *testing.T) {
				got := strings.Join(briefs(Analyze(script, testOpts)), "|")
				if !strings.Contains(got, "opaque") {
					t.Errorf("Analyze(%q) = %s, want it opaque", script, got)
				}
			})
		}
	}
}

// The rules never see an argv from which a harmful setting was dropped.
func TestGitPolicyArgsKeepHarmfulSettings(t *testing.T) {
	got := briefs(Analyze(claudeGitPrefix+"-c core.pager=less log", testOpts))
	if len(got) == 0 || !strings.Contains(got[0], "core.pager=less") || strings.Contains(got[0], "askPass") {
		t.Errorf("got %q", got)
	}
}

// A configuration read meets the rules in one spelling, the action first
// and a lone name as --get; writes keep their spelling (and escalate).
func TestGitConfigReadsAreSpelledOneWay(t *testing.T) {
	runEffectCases(t, []effectCase{
		{"lone name", "git config user.name", []string{"exec git config --get user.name"}},
		{"go's object format", "git config extensions.objectformat", []string{"exec git config --get extensions.objectformat"}},
		{"list last", "git config --local -z --list", []string{"exec git config --list --local -z"}},
		{"get-regexp", "git config --show-origin --get-regexp '^remote'", []string{"exec git config --get-regexp --show-origin ^remote"}},
		{"file value is not the action", "git config --file --list x", []string{"exec git config --get --file --list x", "read --list"}},
		{"file then list", "git config -f cfg --list", []string{"exec git config --list -f cfg", "read cfg"}},
		{"set", "git config user.name x", []string{"exec git config user.name x", "opaque"}},
		{"unset", "git config --unset user.name", []string{"exec git config --unset user.name", "opaque"}},
		{"edit", "git config -e", []string{"exec git config -e", "opaque"}},
		{"dynamic", "git config $k", []string{"exec git config ~{$k}", "opaque"}},
	})
}
