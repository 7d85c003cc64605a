package main

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// openRequestAudit opens f's audit log for sandbox request. A log that
// cannot be opened refuses the request before anything is submitted.
func openRequestAudit(f folder.Folder, logger *slog.Logger) (*audit.Log, error) {
	st, err := userstate.Open(true)
	if err != nil {
		return nil, auditRefused(err)
	}
	lg, err := audit.Open(f, st, audit.WithLogger(logger))
	if err != nil {
		return nil, auditRefused(err)
	}
	return lg, nil
}

// recordCreated appends the writer's record of request id (the one req
// joined, when joined): request.created by "cli", with the content hash.
func recordCreated(lg *audit.Log, req *queue.Request, id string, joined bool) error {
	detail := map[string]any{"summary": queue.Summarize(req), "session": req.Session}
	if joined {
		detail["joined"] = true
	}
	if len(req.PolicyReasons) > 0 {
		detail["reasons"] = strings.Join(req.PolicyReasons, "; ")
	}
	_, err := lg.Append(audit.Entry{
		Actor: "cli", Event: "request.created", RequestID: id, Decision: "escalate",
		ContentHash: req.Hash, Detail: detail,
	})
	return err
}

// unaudited withdraws request id (unless it was joined: its creator
// audited it) after its record could not be written, and refuses.
func unaudited(q *queue.Queue, id string, joined bool, cause error) error {
	if !joined {
		if err := q.Withdraw(id, "its creation could not be audited"); err != nil {
			cause = fmt.Errorf("%w (and withdrawing request %s failed: %v)", cause, id, err)
		}
	}
	return auditRefused(cause)
}

func auditRefused(err error) error {
	return &exitError{code: exitFailure, msg: fmt.Sprintf("request not submitted: the audit log cannot be written: %v", err)}
}
