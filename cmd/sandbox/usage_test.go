package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command answers a bad flag, a bad flag value or bad arguments with
// exit code exitUsage and a message saying what was wrong, through the real
// binary. These are typed errors (usageError); nothing matches their text.
func TestUsageErrors(t *testing.T) {
	root := project(t, true)
	type usageCase struct {
		args []string
		want string // in stderr
	}
	var cases []usageCase
	// A flag no command has, on every command of the tree.
	walkCommands(newRootCmd(), func(c *cobra.Command) {
		path := strings.Fields(c.CommandPath())[1:]
		cases = append(cases, usageCase{append(path, "--no-such-flag"), "unknown flag: --no-such-flag"})
	})
	cases = append(cases, []usageCase{
		{[]string{"bogus"}, `unknown command "bogus" for "sandbox"`},
		{[]string{"-Z"}, "unknown shorthand flag: 'Z'"},
		{[]string{"approve"}, "accepts 1 arg(s), received 0"},
		{[]string{"approve", "01abc", "--pattern", "git *"}, "--pattern needs --always"},
		{[]string{"audit", "bogus"}, `unknown command "bogus" for "sandbox audit"`},
		{[]string{"audit", "show", "a", "b"}, "accepts at most 1 arg(s), received 2"},
		{[]string{"audit", "verify", "a", "b"}, "accepts at most 1 arg(s), received 2"},
		{[]string{"check"}, "give exactly one of --script"},
		{[]string{"check", "--script", "ls", "--write", "a"}, "give exactly one of --script"},
		{[]string{"check", "--jailed", "--unjailed", "--script", "ls"}, "--jailed and --unjailed exclude each other"},
		{[]string{"checkpoints", "a", "b"}, "accepts at most 1 arg(s), received 2"},
		{[]string{"deny"}, "accepts 1 arg(s), received 0"},
		{[]string{"doctor", "x"}, `unknown command "x" for "sandbox doctor"`},
		{[]string{"hook"}, "accepts 1 arg(s), received 0"},
		{[]string{"hook", "claude", "--wait", "soon"}, `invalid argument "soon" for "--wait" flag`},
		{[]string{"init", "a", "b"}, "accepts at most 1 arg(s), received 2"},
		{[]string{"list", "a", "b"}, "accepts at most 1 arg(s), received 2"},
		{[]string{"list", "--state", "bogus"}, `--state "bogus": want pending, claimed, done or all`},
		{[]string{"list", "--json=maybe"}, `invalid argument "maybe" for "--json" flag`},
		{[]string{"mcp", "a", "b"}, "accepts at most 1 arg(s), received 2"},
		{[]string{"policy", "bogus"}, `unknown command "bogus" for "sandbox policy"`},
		{[]string{"policy", "accept", "x"}, `unknown command "x" for "sandbox policy accept"`},
		{[]string{"policy", "diff", "x"}, `unknown command "x" for "sandbox policy diff"`},
		{[]string{"policy", "show", "x"}, `unknown command "x" for "sandbox policy show"`},
		{[]string{"policy", "suggest", "--days", "0"}, "--days and --min must be at least 1"},
		{[]string{"remembered", "bogus"}, `unknown command "bogus" for "sandbox remembered"`},
		{[]string{"remembered", "forget"}, "give the IDs to forget"},
		{[]string{"remembered", "list", "x"}, `unknown command "x" for "sandbox remembered list"`},
		{[]string{"request"}, "give exactly one of --script TEXT and -- ARGV"},
		{[]string{"request", "--wait", "soon", "--script", "ls"}, `invalid argument "soon" for "--wait" flag`},
		{[]string{"restore", "--all", "--list"}, "give exactly one of --list, PATH..., --session ID, --all or --checkpoint ID"},
		{[]string{"result"}, "accepts 1 arg(s), received 0"},
		{[]string{"restore", "--checkpoint", "nope"}, "see `sandbox checkpoints`"},
		{[]string{"result", "../x"}, `"../x" is not a request id`},
		{[]string{"run"}, "requires at least 1 arg(s), only received 0"},
		{[]string{"run", "--memory", "lots", "--", "true"}, `invalid argument --memory "lots"`},
		{[]string{"run", "--pids", "1", "--", "true"}, "invalid argument --pids 1"},
		{[]string{"run", "--fail-on-deny", "--", "true"}, "invalid argument --report/--fail-on-deny: only with --ci"},
		{[]string{"serve", "--addr", "0.0.0.0:8080"}, "refusing to listen beyond loopback"},
		{[]string{"serve", "--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"show"}, "accepts 1 arg(s), received 0"},
		{[]string{"uninstall", "a", "b"}, "accepts at most 1 arg(s), received 2"},
		{[]string{"completion", "bogus"}, `unknown command "bogus" for "sandbox completion"`},
		{[]string{"completion", "bash", "x"}, `unknown command "x" for "sandbox completion bash"`},
		{[]string{"version", "x"}, `unknown command "x" for "sandbox version"`},
		{[]string{"watch", "--wait"}, "unknown flag: --wait"},
	}...)
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			code, out, errs := run(t, root, tc.args...)
			if code != exitUsage || !strings.Contains(errs, tc.want) || !strings.HasPrefix(errs, "sandbox: ") {
				t.Errorf("exit %d, want %d; stderr %q, want %q\nstdout: %s", code, exitUsage, errs, tc.want, out)
			}
		})
	}
}
