package main

import (
	"fmt"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// resultExit maps a finished request onto the exit code the command that
// waited for it returns, and the message it prints on stderr ("" for
// none). An executed command's own exit code is passed through (a signal
// is 128+N, as a shell reports it).
func resultExit(res *queue.Result) (int, string) {
	reason := ""
	if res.Reason != "" {
		reason = ": " + display.EscapeLine(res.Reason)
	}
	switch res.Decision {
	case queue.Approved:
		if res.ExitCode != nil {
			return *res.ExitCode, ""
		}
		return exitOK, ""
	case queue.Denied:
		return exitDenied, fmt.Sprintf("request %s denied by %s%s", res.ID, display.EscapeLine(res.Approver.User), reason)
	case queue.Expired, queue.Withdrawn:
		return exitTimeout, fmt.Sprintf("request %s %s%s", res.ID, res.Decision, reason)
	}
	return exitNotRun, fmt.Sprintf("request %s %s%s", res.ID, res.Decision, reason)
}
