package launcher

import (
	"net"
	"strings"
)

// RefusedText is the reason phrase of the proxy's 403: clients that
// print a CONNECT failure's status (Go, Python) show it, and the hook
// recognises it in a jailed command's output.
const RefusedText = "Forbidden by sandbox"

// AskCommand is how an agent asks a human for a destination the proxy
// refused: a command that needs it, run through `sandbox request`
// (approved, it runs outside the agent's jail with that destination).
func AskCommand(hostport string) string {
	return "sandbox request --reason " + shellQuote("needs "+hostport) + " -- COMMAND ARGS..."
}

// writeRefusal answers a refused destination: 403 with the reason, and
// in the body and the X-Sandbox-Ask header the exact way to ask a human
// (most clients show a plain-HTTP body; for a CONNECT, curl -v and Go's
// and Python's errors show the status line, which names sandbox).
func writeRefusal(c net.Conn, hostport, reason string) {
	ask := AskCommand(hostport)
	body := "sandbox: " + hostport + " denied: " + reason + "\n" +
		"sandbox: to ask a human (unless one has just denied it), run the command that needs it as: " + ask
	writeAnswer(c, 403, RefusedText, []string{
		"X-Sandbox-Refused: " + headerSafe(hostport),
		"X-Sandbox-Ask: " + headerSafe(ask),
	}, body)
}

// headerSafe keeps a header value on one line of printable ASCII.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return -1
		}
		return r
	}, s)
}

// shellQuote single-quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
