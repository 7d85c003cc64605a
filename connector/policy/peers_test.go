package policy

import (
	"testing"
)

// Codex's own command-safety tests (codex-rs/shell-command/src/
// command_safety: is_safe_command.rs and is_dangerous_command.rs),
// translated case by case to our default policy. docs/THREAT-MODEL.md
// keeps the table of which hold and why the others differ.
//
// codexUnsafe are the commands Codex's tests say must never be auto-
// approved. Under our default policy none of them may be allowed either.
var codexUnsafe = []string{
	// unknown_or_partial: find options that execute, delete or write.
	"find . -name file.txt -exec rm {} ;",
	"find . -name '*.py' -execdir python3 {} ;",
	"find . -name file.txt -ok rm {} ;",
	"find . -name '*.py' -okdir python3 {} ;",
	"find . -delete -name file.txt",
	"find . -fls /etc/passwd",
	"find . -fprint /etc/passwd",
	"find . -fprint0 /etc/passwd",
	"find . -fprintf /root/suid.txt '%#m %u %p\\n'",
	"foo",
	"git fetch",
	// base64_output_options_are_unsafe, with targets outside the project.
	"base64 -o /etc/out.bin",
	"base64 --output /etc/out.bin",
	"base64 --output=/etc/out.bin",
	"base64 -o/etc/b64.txt",
	// ripgrep_rules: external commands.
	"rg --pre pwned files",
	"rg --pre=pwned files",
	"rg --hostname-bin pwned files",
	"rg --hostname-bin=pwned files",
	// bash_lc_unsafe_examples.
	"ls && rm -rf /",
	"bash -lc 'ls && rm -rf /'",
	"'git status'",
	// is_dangerous_command: forced rm, outside the project.
	"rm -rf /",
	"rm -f /",
	"/bin/rm -fr /tmp/example",
	"rm -r -f /tmp/example",
	"rm --force /tmp/example",
	"rm /tmp/example -f",
	"sudo rm -rf /tmp/example",
	"printf x | rm -rf /tmp/example",
	"if test -d /tmp/example; then rm --force /tmp/example; fi",
	"rm -rf \"$TARGET\" >/dev/null",
	"for target in /tmp/a /tmp/b; do rm -r -f \"$target\"; done",
	"echo \"$(rm -rf /tmp/example)\"",
	"cmd=rm; $cmd -rf /tmp/example",
}

// codexSafe are Codex's known-safe examples that read only. We allow them
// too; the ones Codex refuses but we allow on purpose (git status, its
// read-only subcommands, writes inside the project) are listed in
// docs/THREAT-MODEL.md with the reason.
var codexSafe = []string{
	"ls",
	"ls -1",
	"base64 README.md",
	"sed -n 1,5p file.txt",
	"sed -n '1,5p' file.txt",
	"nl -nrz Cargo.toml",
	"find . -name file.txt",
	"rg Cargo.toml -n",
	"grep -R \"Cargo.toml\" -n",
	"grep -R \"Cargo.toml\" -n || true",
	"ls && pwd",
	"echo 'hi' ; ls",
	"ls | wc -l",
	"bash -lc ls",
	"bash -lc 'sed -n 1,5p file.txt'",
	"tac Cargo.toml",
}

func TestCodexCommandSafetyNeverAllowed(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, DefaultYAML())
	for _, script := range codexUnsafe {
		t.Run(script, func(t *testing.T) {
			if d := e.Shell(script, ""); d.Decision == Allow {
				t.Errorf("allowed:\n%s", dump(d))
			}
		})
	}
}

func TestCodexCommandSafetySafeAllowed(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, DefaultYAML())
	for _, script := range codexSafe {
		t.Run(script, func(t *testing.T) {
			if d := e.Shell(script, ""); d.Decision != Allow {
				t.Errorf("%v:\n%s", d.Decision, dump(d))
			}
		})
	}
}

// Codex's network-proxy host policy tests (codex-rs/network-proxy/src/
// policy.rs), translated: the same normalisation and wildcard meaning
// under our network rules.
func TestCodexNetworkPolicyHosts(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, []byte(`version: 1
network:
  allow:
    - "Example.COM."
    - "*.Example.ORG."
    - "[::1]:8080"
  deny:
    - {pattern: "blocked.example.net", reason: "denied"}
`))
	tests := []struct {
		name, dest string
		want       Tier
	}{
		{"compile_globset_normalizes_trailing_dots (exact)", "example.com:443", Allow},
		{"compile_globset_normalizes_trailing_dots (not a subdomain)", "api.example.com:443", Escalate},
		{"compile_globset_normalizes_wildcards (subdomain)", "api.example.org:443", Allow},
		{"compile_globset_normalizes_wildcards (not the apex)", "example.org:443", Escalate},
		{"compile_globset_normalizes_wildcards (deeper subdomain)", "a.b.example.org:443", Allow},
		{"case and trailing dot of the destination", "API.Example.Org.:443", Allow},
		{"compile_globset_normalizes_bracketed_ipv6_literals", "[::1]:8080", Allow},
		{"is_loopback_host_handles_localhost_variants (unlisted)", "LOCALHOST.:80", Escalate},
		{"is_non_public_ip: cloud metadata is denied whatever the policy", "169.254.169.254:80", Deny},
		{"is_non_public_ip: metadata in another spelling", "[::ffff:169.254.169.254]:80", Deny},
		{"denylist wins", "blocked.example.net:443", Deny},
		{"look-alike suffix", "evilexample.com:443", Escalate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := e.Network(tc.dest); d.Decision != tc.want {
				t.Errorf("%s: %v, want %v:\n%s", tc.dest, d.Decision, tc.want, dump(d))
			}
		})
	}
}

// A deny rule's wildcard written in capitals or with a trailing dot
// still denies (it used to compare case-sensitively and never matched).
func TestWildcardDenyNormalised(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, []byte("version: 1\nnetwork:\n  allow: [\"*\"]\n  deny:\n    - {pattern: \"*.Evil.COM.\", reason: r}\n"))
	for _, h := range []string{"api.evil.com:443", "API.EVIL.COM.:443", "a.b.evil.com:80"} {
		if d := e.Network(h); d.Decision != Deny {
			t.Errorf("%s: %v, want deny:\n%s", h, d.Decision, dump(d))
		}
	}
}
