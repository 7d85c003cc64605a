package launcher

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// CIEscalation is one request a CI run decided, and how it ended.
type CIEscalation struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Source  string `json:"source"`
	Subject string `json:"subject"` // escaped one-line summary
	// Outcome is approved (and executed), denied, failed (approved but
	// could not run) or error (the decision itself failed).
	Outcome  string    `json:"outcome"`
	Rule     string    `json:"rule"` // what decided it
	ExitCode *int      `json:"exit_code,omitempty"`
	Error    string    `json:"error,omitempty"`
	At       time.Time `json:"at"`
}

// fill sets the outcome from an approval's or a denial's result.
func (e *CIEscalation) fill(res *queue.Result, err error, approve bool) {
	switch {
	case res != nil && res.Decision == queue.Approved:
		e.Outcome, e.ExitCode = "approved", res.ExitCode
	case res != nil && res.Decision == queue.Failed:
		e.Outcome, e.Error = "failed", res.Reason
	case res != nil:
		e.Outcome = string(res.Decision)
	case err == nil && !approve:
		e.Outcome = "denied" // in place; the result is written by whoever held the claim
	default:
		e.Outcome = "error"
	}
	if err != nil {
		e.Error = strings.TrimPrefix(e.Error+"; "+err.Error(), "; ")
	}
}

// CIReport is what `sandbox run --ci` prints and writes with --report.
type CIReport struct {
	Version     int            `json:"version"`
	Folder      string         `json:"folder"`
	Command     []string       `json:"command"`
	ExitCode    int            `json:"exit_code"`
	Started     time.Time      `json:"started"`
	Finished    time.Time      `json:"finished"`
	Approved    int            `json:"approved"`
	Denied      int            `json:"denied"`
	Failed      int            `json:"failed"`
	Escalations []CIEscalation `json:"escalations"`
}

// NewCIReport summarises escalations.
func NewCIReport(folder string, command []string, exitCode int, started time.Time, esc []CIEscalation) *CIReport {
	r := &CIReport{Version: 1, Folder: folder, Command: command, ExitCode: exitCode,
		Started: started.UTC(), Finished: time.Now().UTC(), Escalations: esc}
	if r.Escalations == nil {
		r.Escalations = []CIEscalation{}
	}
	for _, e := range esc {
		switch e.Outcome {
		case "approved":
			r.Approved++
		case "denied":
			r.Denied++
		default:
			r.Failed++
		}
	}
	return r
}

// AnyDenied reports whether the run denied (or failed to decide) any
// escalation.
func (r *CIReport) AnyDenied() bool { return r.Denied > 0 || r.Failed > 0 }

// WriteSummary prints the report for a CI log.
func (r *CIReport) WriteSummary(w io.Writer) {
	fmt.Fprintf(w, "sandbox: CI summary: %d escalation(s): %d approved, %d denied, %d failed\n",
		len(r.Escalations), r.Approved, r.Denied, r.Failed)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	for _, e := range r.Escalations {
		extra := display.EscapeLine(display.Truncate(e.Rule, 200))
		if e.ExitCode != nil {
			extra = fmt.Sprintf("exit %d; %s", *e.ExitCode, extra)
		}
		if e.Error != "" {
			extra += "; " + display.EscapeLine(display.Truncate(e.Error, 200))
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", e.Outcome, e.Kind, e.Subject, extra)
	}
	tw.Flush()
}

// WriteJSON writes the report to path (atomically).
func (r *CIReport) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("CI report: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("CI report: %w", err)
	}
	return nil
}
