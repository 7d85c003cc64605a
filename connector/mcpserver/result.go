package mcpserver

import (
	"fmt"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Status values of an Outcome besides the queue's decisions.
const (
	StatusAllowed = "allowed" // the policy allowed it; it ran at once
	StatusPending = "pending" // nobody has decided yet
)

// Outcome is the structuredContent of run_privileged and check_request.
// Summary repeats the header of the text content: some clients (Claude
// Code) pass only structuredContent on to the model, which must still
// read that the command ran and must not be run again.
type Outcome struct {
	ID         string   `json:"id"`
	Status     string   `json:"status"`
	Summary    string   `json:"summary"`
	ExitCode   *int     `json:"exit_code"`
	Stdout     string   `json:"stdout"`
	Stderr     string   `json:"stderr"`
	Truncated  bool     `json:"truncated"`
	LogPath    string   `json:"log_path"`
	DecidedBy  string   `json:"decided_by,omitempty"`
	DurationMS int64    `json:"duration_ms,omitempty"`
	Reasons    []string `json:"reasons,omitempty"`
	Message    string   `json:"message,omitempty"`
}

// failed reports whether the outcome is an error for the model: a
// non-zero exit, a refusal, or a request that ended without running.
func (o *Outcome) failed() bool {
	switch o.Status {
	case StatusAllowed, string(queue.Approved):
		return o.ExitCode != nil && *o.ExitCode != 0
	case StatusPending:
		return false
	}
	return true
}

// toolResult renders an outcome: a header, then stdout and stderr as
// text blocks, and the outcome itself as structuredContent.
func (o *Outcome) toolResult(header string) *ToolResult {
	o.Summary = header
	content := []TextContent{textBlock(header)}
	if o.Stdout != "" {
		content = append(content, textBlock("--- stdout ---\n"+o.Stdout))
	}
	if o.Stderr != "" {
		content = append(content, textBlock("--- stderr ---\n"+o.Stderr))
	}
	return &ToolResult{Content: content, StructuredContent: o, IsError: o.failed()}
}

// allowedResult renders a command the policy allowed, run here.
func allowedResult(oc broker.Outcome, d policy.Decision) *ToolResult {
	code := oc.ExitCode
	o := &Outcome{Status: StatusAllowed, ExitCode: &code, Stdout: oc.Stdout, Stderr: oc.Stderr,
		Truncated: oc.StdoutTruncated || oc.StderrTruncated, DurationMS: oc.Duration.Milliseconds(),
		DecidedBy: "policy", Reasons: d.Reasons}
	h := fmt.Sprintf("sandbox: ALLOWED by this folder's policy and run at once (no human needed) · %s · took %s\n"+
		"This is the command's real output; it ran once: do not run it again.%s",
		exitText(code, oc.Signal), duration(o.DurationMS), noOutput(o))
	return o.toolResult(h)
}

// policyDenied renders the policy's refusal.
func policyDenied(d policy.Decision) *ToolResult {
	o := &Outcome{Status: string(queue.Denied), DecidedBy: "policy", Reasons: d.Reasons}
	var b strings.Builder
	b.WriteString("sandbox: DENIED by this folder's policy. Nothing ran.\n")
	for _, r := range d.Reasons {
		b.WriteString("- " + r + "\n")
	}
	if w, ok := d.Why(); ok {
		b.WriteString("Why: " + w.String() + "\n")
	}
	b.WriteString("Do not try to get around this; find another way or ask the user.")
	return o.toolResult(b.String())
}

// pendingResult renders a request still waiting for a human.
func pendingResult(id string, waited time.Duration, reasons []string) *ToolResult {
	o := &Outcome{ID: id, Status: StatusPending, Reasons: reasons}
	h := fmt.Sprintf("sandbox: WAITING for a human to decide request %s (waited %s). Nothing has run yet.\n"+
		"Call check_request with id %q to get the result once it is decided; asking the same command again joins this request.",
		id, waited.Round(time.Second), id)
	return o.toolResult(h)
}

// finishedResult renders a request that reached a decision.
func finishedResult(f func(id string) string, res *queue.Result) *ToolResult {
	o := &Outcome{ID: res.ID, Status: string(res.Decision), ExitCode: res.ExitCode,
		Stdout: res.Stdout, Stderr: res.Stderr, Truncated: res.StdoutTruncated || res.StderrTruncated,
		DecidedBy: who(res.Approver), DurationMS: res.DurationMS, Message: res.Reason}
	if res.LogPath != "" {
		o.LogPath = res.LogPath
		if !strings.HasPrefix(o.LogPath, "/") && f != nil {
			o.LogPath = f(res.ID)
		}
	}
	return o.toolResult(finishedHeader(o, res))
}

func finishedHeader(o *Outcome, res *queue.Result) string {
	switch res.Decision {
	case queue.Approved:
		if res.Kind != "" && res.Kind != queue.KindShell {
			return fmt.Sprintf("sandbox: APPROVED by %s · request %s (%s).\n%s", o.DecidedBy, o.ID, res.Kind, quoted(res.Reason))
		}
		h := fmt.Sprintf("sandbox: APPROVED by %s and EXECUTED outside the agent · request %s · %s · took %s\n"+
			"This is the command's real output; it ran once: do not run it again.%s",
			o.DecidedBy, o.ID, exitText(deref(res.ExitCode), res.Signal), duration(o.DurationMS), noOutput(o))
		if o.Truncated {
			h += fmt.Sprintf("\nThe output was cut; the whole output is in %s.", o.LogPath)
		}
		return h
	case queue.Denied:
		return fmt.Sprintf("sandbox: DENIED by %s · request %s. Nothing ran.\nTheir reason: %s\nDo not retry this; ask the user.",
			o.DecidedBy, o.ID, quoted(res.Reason))
	case queue.Failed:
		return fmt.Sprintf("sandbox: request %s was approved by %s but could not be carried out: %s\nAsk the user.",
			o.ID, o.DecidedBy, quoted(res.Reason))
	case queue.Interrupted:
		return fmt.Sprintf("sandbox: request %s was interrupted: the approver stopped after taking it, so it may or may not have run, and it will not be run again by itself.\nCheck the state of things, then ask the user.", o.ID)
	}
	return fmt.Sprintf("sandbox: request %s %s without a decision. Nothing ran.\nAsk the user before trying again.", o.ID, res.Decision)
}

func exitText(code int, signal string) string {
	switch {
	case signal != "":
		return "killed by signal " + signal
	case code == 0:
		return "exit code 0"
	}
	return fmt.Sprintf("exit code %d (the command itself failed)", code)
}

func noOutput(o *Outcome) string {
	if o.Stdout == "" && o.Stderr == "" {
		return "\n(no output)"
	}
	return ""
}

func deref(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func duration(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).Round(time.Millisecond).String()
}

func who(a queue.Approver) string {
	switch {
	case a.User != "" && a.Surface != "":
		return a.User + " via " + a.Surface
	case a.User != "":
		return a.User
	case a.Surface != "":
		return a.Surface
	}
	return "the approver"
}

func quoted(r string) string {
	if strings.TrimSpace(r) == "" {
		return "(none given)"
	}
	return r
}

// badArguments is the isError result for invalid arguments.
func badArguments(err error) *ToolResult {
	return errorResult("sandbox: " + err.Error())
}

// internalError is the isError result when the server could not decide:
// nothing ran.
func internalError(err error) *ToolResult {
	return errorResult("sandbox: could not handle this call, so nothing ran: " + err.Error())
}
