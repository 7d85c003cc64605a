package hook

import (
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// What jailed commands print when the jail refuses, as the common tools
// spell it, and what they print when something else went wrong.
func TestRefusalNote(t *testing.T) {
	c := &Core{Folder: folder.Folder{Root: "/proj"}, JailState: JailWraps}
	const script = "touch /etc/motd && echo it's done"
	ask := `sandbox request --reason 'needs a write to /etc/motd' --script 'touch /etc/motd && echo it'\''s done'`
	tests := []struct {
		name, output string
		want         string // substring of the note; "" for no note
	}{
		{"coreutils", "touch: cannot touch '/etc/motd': Permission denied", ask},
		{"coreutils, UTF-8 quotes", "mkdir: cannot create directory ‘/etc/motd’: Permission denied", ask},
		{"bash redirection", "bash: line 1: /etc/motd: Read-only file system", ask},
		{"python", "PermissionError: [Errno 13] Permission denied: '/etc/motd'", ask},
		{"go", "open /etc/motd: permission denied", ask},
		{"node", "Error: EACCES: permission denied, open '/etc/motd'", ask},
		{"read-only inside the project", "cp: cannot create regular file '/proj/.git/config': Read-only file system",
			"the jail refused a write to /proj/.git/config"},
		{"read-only, no path", "sqlite: attempt to write: Read-only file system", "the jail refused a write;"},
		{"proxy body", "sandbox: example.com:443 denied: nobody decided\nsandbox: to ask a human (unless one has just denied it), run the command that needs it as: sandbox request ...",
			"the jail refused a connection to example.com:443; to ask a human to run this command outside the jail, run: sandbox request --reason 'needs a connection to example.com:443' --script"},
		{"curl CONNECT", "curl: (56) CONNECT tunnel failed, response 403", "the jail refused a connection;"},
		{"python CONNECT", "ProxyError('Unable to connect to proxy', OSError('Tunnel connection failed: 403 Forbidden by sandbox'))",
			"the jail refused a connection;"},
		{"permission denied in the project", "bash: ./run.sh: Permission denied", ""},
		{"permission denied in the project, absolute", "bash: /proj/run.sh: Permission denied", ""},
		{"permission denied in /tmp", "touch: cannot touch '/tmp/x': Permission denied", ""},
		{"a plain failure", "make: *** [all] Error 1", ""},
		{"another proxy's 403", "HTTP/1.1 403 Forbidden", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := c.PostToolUseContext(&Call{Action: Shell, Script: script}, "some output\n"+tc.output+"\n")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("note = %q, want %q", got, tc.want)
			}
			if strings.Count(got, "\n") > 0 {
				t.Errorf("the note is more than one line: %q", got)
			}
		})
	}
}

// Only jailed shell commands get the note: unjailed, "permission denied"
// is the file's own mode, and the other tools are not commands.
func TestRefusalNoteOnlyForJailedShell(t *testing.T) {
	out := "touch: cannot touch '/etc/motd': Permission denied"
	for _, st := range []JailState{JailUnknown, JailUnavailable} {
		c := &Core{Folder: folder.Folder{Root: "/proj"}, JailState: st}
		if got := c.PostToolUseContext(&Call{Action: Shell, Script: "touch /etc/motd"}, out); got != "" {
			t.Errorf("state %d: %q", st, got)
		}
	}
	c := &Core{Folder: folder.Folder{Root: "/proj"}, JailState: JailInside}
	if got := c.PostToolUseContext(&Call{Action: Write, Paths: []string{"/etc/motd"}}, out); got != "" {
		t.Errorf("a Write: %q", got)
	}
	if got := c.PostToolUseContext(&Call{Action: Shell, Script: "touch /etc/motd"}, out); got == "" {
		t.Error("inside the jail: no note")
	}
}

// The note asks for the agent's own command, not connector mode's jailed
// form of it.
func TestUnwrapJailed(t *testing.T) {
	own := `echo 'a b' > /etc/x`
	wrapped := `{ __sandbox_cwd=$('/usr/bin/sandbox' run --quiet --shared-tmp --dir '/proj' --cwd-fd 3 -- bash -c ` +
		`'trap '\''pwd -P >&0 2>/dev/null'\'' EXIT; echo '\''a b'\'' > /etc/x' 3>&1 1>&4 4>&-); } 4>&1; __sandbox_rc=$?; ` +
		`[ -z "$__sandbox_cwd" ] || cd -- "$__sandbox_cwd" 2>/dev/null; (exit $__sandbox_rc)`
	if got := unwrapJailed(wrapped); got != own {
		t.Errorf("unwrapJailed = %q, want %q", got, own)
	}
	for _, s := range []string{own, "bash -c 'x'", "sandbox run --quiet --shared-tmp -- bash -c 'unclosed"} {
		if got := unwrapJailed(s); got != s {
			t.Errorf("unwrapJailed(%q) = %q", s, got)
		}
	}
}

// In run mode (and in connector mode's jail) the session brief says how
// to ask when the jail refuses, with the same command as the note.
func TestBriefSaysHowToAskWhenTheJailRefuses(t *testing.T) {
	for _, tc := range []struct {
		st   JailState
		want bool
	}{{JailInside, true}, {JailWraps, true}, {JailUnavailable, false}, {JailUnknown, false}} {
		c := &Core{Folder: folder.Folder{Root: "/proj"}, JailState: tc.st}
		got := c.Brief(BriefOptions{})
		if has := strings.Contains(got, "sandbox request --reason 'WHY' --script 'COMMAND'") &&
			strings.Contains(got, "127.0.0.1:PORT"); has != tc.want {
			t.Errorf("state %d: brief mentions how to ask = %v, want %v:\n%s", tc.st, has, tc.want, got)
		}
	}
}
