package hook

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/sandbox-dev/sandbox/connector/display"
)

// The proxy's refusal as a jailed client prints it: the 403's reason
// phrase (launcher.RefusedText; Go and Python show it), its body's last
// line (plain-HTTP clients print the body), and curl's two spellings of a
// CONNECT that got a 403 (the jail's only proxy is sandbox's).
var proxyRefusals = []string{
	"Forbidden by sandbox",
	"sandbox: to ask a human (unless one has just denied it), run the command that needs it as:",
	"CONNECT tunnel failed, response 403",
	"Received HTTP code 403 from proxy after CONNECT",
}

// refusedDest finds the destination in the proxy's body line
// "sandbox: HOST:PORT denied: ..." (a host, an IP or [v6], and a port).
// Compiled on first use: the hook's start-up is on every tool call.
var refusedDest = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`sandbox: ((?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}) denied: `)
})

// pathInError finds an absolute path in an error line: quoted ('p', ‘p’,
// "p") or bare before a colon or comma (bash's "/p: Permission denied",
// Go's "open /p: permission denied", Node's "EACCES: ..., open '/p'").
var pathInError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:['‘"](/[^'’"]*)['’"])|(?:(?:^|[\s(])(/[^\s:,'"]+)(?:[:,]|$))`)
})

// maxScanned bounds the output scanned for a refusal: the hook reads the
// tail, where a failing command's last error is.
const maxScanned = 64 << 10

// refusalNote is one sentence for the model when a jailed shell command's
// output shows that the jail refused a write (read-only file system, or
// permission denied on a path outside what jailed commands may write) or
// the proxy refused a connection: the exact `sandbox request` command that
// asks a human to run it outside the jail. "" otherwise, and for calls
// that did not run in the jail.
func (c *Core) refusalNote(call *Call, output string) string {
	if call == nil || call.Action != Shell || c.JailState != JailWraps && c.JailState != JailInside {
		return ""
	}
	if len(output) > maxScanned {
		output = output[len(output)-maxScanned:]
	}
	what := c.refusedWhat(output)
	if what == "" {
		return ""
	}
	script := unwrapJailed(call.Script)
	return "sandbox: the jail refused " + what + "; to ask a human to run this command outside the jail, run: " +
		"sandbox request --reason " + display.SingleQuote("needs "+what) + " --script " + display.SingleQuote(script)
}

// refusedWhat names what the output shows the jail refused ("a write to
// /etc/x", "a connection to example.com:443"), or "".
func (c *Core) refusedWhat(output string) string {
	for _, line := range strings.Split(output, "\n") {
		if w := c.refusedLine(line); w != "" {
			return w
		}
	}
	return ""
}

func (c *Core) refusedLine(line string) string {
	if strings.Contains(line, "sandbox: ") {
		if m := refusedDest().FindStringSubmatch(line); m != nil {
			return "a connection to " + m[1]
		}
	}
	for _, r := range proxyRefusals {
		if strings.Contains(line, r) {
			return "a connection"
		}
	}
	lower := strings.ToLower(line)
	rofs := strings.Contains(lower, "read-only file system")
	if !rofs && !strings.Contains(lower, "permission denied") {
		return ""
	}
	path := errorPath(line)
	switch {
	case path != "" && (rofs || !c.writableInJail(path)):
		return "a write to " + path
	case path == "" && rofs:
		return "a write"
	}
	return ""
}

func errorPath(line string) string {
	for _, m := range pathInError().FindAllStringSubmatch(line, -1) {
		for _, p := range m[1:] {
			if p != "" {
				return filepath.Clean(p)
			}
		}
	}
	return ""
}

// writableInJail reports a path under the trees a jailed command may
// write: the project and the temp dirs. A "permission denied" there is
// the file's own mode, not the jail.
func (c *Core) writableInJail(path string) bool {
	for _, dir := range []string{c.Folder.Root, "/tmp", "/var/tmp", "/dev/shm"} {
		if dir != "" && (path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")) {
			return true
		}
	}
	return false
}

// unwrapJailed returns the agent's own script from connector mode's jailed
// form (live.jailer: `... run --quiet --shared-tmp ... -- bash -c 'TRAP;
// SCRIPT' ...`), which is what the agent may see as the call's command;
// anything else is returned as it is.
func unwrapJailed(script string) string {
	const marker = " -- bash -c '"
	i := strings.Index(script, marker)
	if i < 0 || !strings.Contains(script[:i], " run --quiet --shared-tmp ") {
		return script
	}
	quoted, ok := singleQuoted(script[i+len(marker)-1:])
	if !ok {
		return script
	}
	if _, rest, found := strings.Cut(quoted, "EXIT; "); found && strings.HasPrefix(quoted, "trap ") {
		return rest
	}
	return quoted
}

// singleQuoted reads one shell word made of single-quoted parts joined by
// \' (display.SingleQuote's form) at the start of s.
func singleQuoted(s string) (string, bool) {
	var b strings.Builder
	for {
		if !strings.HasPrefix(s, "'") {
			return "", false
		}
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", false
		}
		b.WriteString(s[1 : 1+end])
		s = s[2+end:]
		if !strings.HasPrefix(s, `\'`) {
			return b.String(), true
		}
		b.WriteByte('\'')
		s = s[2:]
	}
}
