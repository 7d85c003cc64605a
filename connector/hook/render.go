package hook

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// MaxReason caps the text given back to the model for one call.
const MaxReason = 9000

// finished renders an escalation that reached a decision.
func (c *Core) finished(call *Call, res *queue.Result) string {
	switch res.Decision {
	case queue.Approved:
		if res.WrittenHash != "" || call.Action == Write {
			return applied(call, res)
		}
		return c.executed(res)
	case queue.Denied:
		return fmt.Sprintf("sandbox: DENIED by %s · request %s. Nothing ran.\nTheir reason: %s\nDo not retry this; ask the user.",
			who(res.Approver), res.ID, quoteReason(res.Reason))
	case queue.Expired, queue.Withdrawn:
		return fmt.Sprintf("sandbox: request %s %s without a decision. Nothing ran.\nAsk the user before trying again.", res.ID, res.Decision)
	case queue.Interrupted:
		return fmt.Sprintf("sandbox: request %s was interrupted: the approver stopped after taking it, so it may or may not have run, and it will not be run again by itself.\nCheck the state of things, then ask the user.", res.ID)
	case queue.Failed:
		return fmt.Sprintf("sandbox: request %s was approved by %s but could not be carried out: %s\nAsk the user.", res.ID, who(res.Approver), quoteReason(res.Reason))
	}
	return fmt.Sprintf("sandbox: request %s ended as %q. Nothing is known to have run; ask the user.", res.ID, res.Decision)
}

func who(a queue.Approver) string {
	switch {
	case a.User != "" && a.Surface != "":
		return fmt.Sprintf("%s via %s", a.User, a.Surface)
	case a.User != "":
		return a.User
	case a.Surface != "":
		return a.Surface
	}
	return "the approver"
}

func quoteReason(r string) string {
	if strings.TrimSpace(r) == "" {
		return "(none given)"
	}
	return r
}

// executed renders an approved command that ran: a header no model can
// take for an error, then its real output, capped.
func (c *Core) executed(res *queue.Result) string {
	var h strings.Builder
	fmt.Fprintf(&h, "sandbox: APPROVED and EXECUTED outside the agent. Nothing failed unless the exit code says so.\n")
	fmt.Fprintf(&h, "Approved by %s · request %s · %s · took %s\n", who(res.Approver), res.ID, exitText(res), duration(res.DurationMS))
	h.WriteString("This is the command's real output; do not run it again.\n")
	body := outputText(res)
	log := res.LogPath
	if log == "" {
		log = c.Folder.ResultLog(res.ID)
	} else if !isAbs(log) {
		log = c.Folder.Dir() + "/" + log
	}
	return capText(h.String(), body, log, res.StdoutTruncated || res.StderrTruncated)
}

func isAbs(p string) bool { return strings.HasPrefix(p, "/") || (len(p) > 2 && p[1] == ':') }

func exitText(res *queue.Result) string {
	switch {
	case res.Signal != "":
		return "killed by signal " + res.Signal
	case res.ExitCode == nil:
		return "exit code unknown"
	case *res.ExitCode == 0:
		return "exit code 0"
	}
	return fmt.Sprintf("exit code %d (the command itself failed)", *res.ExitCode)
}

func duration(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).Round(time.Millisecond).String()
}

func outputText(res *queue.Result) string {
	var b strings.Builder
	if res.Stdout != "" {
		b.WriteString("--- stdout ---\n")
		b.WriteString(res.Stdout)
		if !strings.HasSuffix(res.Stdout, "\n") {
			b.WriteString("\n")
		}
	}
	if res.Stderr != "" {
		b.WriteString("--- stderr ---\n")
		b.WriteString(res.Stderr)
		if !strings.HasSuffix(res.Stderr, "\n") {
			b.WriteString("\n")
		}
	}
	if b.Len() == 0 {
		return "(no output)\n"
	}
	return b.String()
}

// capText joins header and body within MaxReason characters: a longer
// body keeps its head and tail around a marker naming the full log.
func capText(header, body, log string, truncated bool) string {
	body = strings.ToValidUTF8(body, "\uFFFD")
	total := utf8.RuneCountInString(header) + utf8.RuneCountInString(body)
	if total <= MaxReason {
		if truncated {
			return header + body + fmt.Sprintf("[output truncated; the full output is in %s, which you may Read]\n", log)
		}
		return header + body
	}
	runes := []rune(body)
	marker := fmt.Sprintf("\n[... %%d characters omitted; the full output is in %s, which you may Read ...]\n", log)
	budget := MaxReason - utf8.RuneCountInString(header) - utf8.RuneCountInString(marker) - 8
	if budget < 0 {
		budget = 0
	}
	head, tail := budget/2, budget-budget/2
	omitted := len(runes) - head - tail
	return header + string(runes[:head]) + fmt.Sprintf(marker, omitted) + string(runes[len(runes)-tail:])
}

// applied renders an approved write that the broker carried out.
func applied(call *Call, res *queue.Result) string {
	what := "wrote the content you gave to"
	if call.Content == nil && len(call.Edits) > 0 {
		what = fmt.Sprintf("applied your %d edit(s) to", len(call.Edits))
	}
	path := strings.Join(call.Paths, " ")
	return fmt.Sprintf("sandbox: APPROVED and APPLIED outside the agent. Nothing failed.\n"+
		"Approved by %s · request %s · the broker %s %s; the file's new SHA-256 is %s.\n"+
		"The change is made exactly as you asked; do not write it again.",
		who(res.Approver), res.ID, what, path, orUnknown(res.WrittenHash))
}

func orUnknown(s string) string {
	if s == "" {
		return "(not reported)"
	}
	return s
}

// pending renders an escalation still waiting for a human.
func pending(id string) string {
	return fmt.Sprintf("sandbox: WAITING for a human to decide request %s. Nothing has run yet.\n"+
		"Retrying exactly the same call joins the same request instead of asking again; "+
		"the check_request MCP tool (id %s) returns its result once it is decided.", id, id)
}

// policyDenial renders the policy's refusal.
func policyDenial(d policy.Decision) string {
	var b strings.Builder
	b.WriteString("sandbox: DENIED by this folder's policy. Nothing ran.\n")
	writeReasons(&b, d.Reasons)
	writeWhy(&b, d)
	b.WriteString("Do not try to get around this; find another way or ask the user.")
	return b.String()
}

func notEscalable(d policy.Decision, why string) string {
	var b strings.Builder
	b.WriteString("sandbox: this needs a human's approval, but " + why + ". Nothing ran.\n")
	writeReasons(&b, d.Reasons)
	writeWhy(&b, d)
	return strings.TrimRight(b.String(), "\n")
}

// writeWhy names the one part responsible for d and the narrowest rule
// that would allow it (or why none can): the line the human sees too.
func writeWhy(b *strings.Builder, d policy.Decision) {
	if w, ok := d.Why(); ok {
		b.WriteString("Why: " + w.String() + "\n")
	}
}

// pendingWhy is pending's text with the reason it asked.
func pendingWhy(id string, d policy.Decision) string {
	var b strings.Builder
	b.WriteString(pending(id))
	b.WriteString("\n")
	writeWhy(&b, d)
	return strings.TrimRight(b.String(), "\n")
}

func writeReasons(b *strings.Builder, reasons []string) {
	for _, r := range reasons {
		b.WriteString("- " + r + "\n")
	}
}
