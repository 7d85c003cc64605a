package serve

import (
	"time"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// ResultView is a request's result (done/ID.json) as the API shows it,
// every text escaped. Stdout and Stderr are the capped copies in the
// result; /api/requests/{id}/output streams the full log.
type ResultView struct {
	Decision        queue.Decision `json:"decision"`
	User            string         `json:"user"`
	Surface         string         `json:"surface"`
	Reason          string         `json:"reason,omitempty"`
	Always          string         `json:"always,omitempty"`
	Decided         time.Time      `json:"decided,omitzero"`
	Started         time.Time      `json:"started,omitzero"`
	Finished        time.Time      `json:"finished,omitzero"`
	ExitCode        *int           `json:"exit_code,omitempty"`
	Signal          string         `json:"signal,omitempty"`
	Stdout          string         `json:"stdout,omitempty"`
	Stderr          string         `json:"stderr,omitempty"`
	StdoutTruncated bool           `json:"stdout_truncated,omitempty"`
	StderrTruncated bool           `json:"stderr_truncated,omitempty"`
	DurationMS      int64          `json:"duration_ms"`
	LogPath         string         `json:"log_path,omitempty"`
}

func viewResult(res *queue.Result) *ResultView {
	if res == nil {
		return nil
	}
	return &ResultView{
		Decision: res.Decision, User: display.EscapeLine(res.Approver.User),
		Surface: display.EscapeLine(res.Approver.Surface), Reason: escapeBlock(res.Reason),
		Always: display.EscapeLine(res.Always), Decided: res.Decided, Started: res.Started,
		Finished: res.Finished, ExitCode: res.ExitCode, Signal: display.EscapeLine(res.Signal),
		Stdout: escapeBlock(res.Stdout), Stderr: escapeBlock(res.Stderr),
		StdoutTruncated: res.StdoutTruncated, StderrTruncated: res.StderrTruncated,
		DurationMS: res.DurationMS, LogPath: display.EscapeLine(res.LogPath),
	}
}

// viewDone describes a finished request from its result alone (the
// request file is gone once done).
func viewDone(key string, res *queue.Result) *RequestView {
	return &RequestView{
		ID: res.ID, Folder: key, Kind: res.Kind, State: queue.StateDone, Summary: display.EscapeLine(res.Summary),
		Session: display.EscapeLine(res.Session), Hash: display.EscapeLine(res.RequestHash),
		Created: res.Requested, Result: viewResult(res),
	}
}
