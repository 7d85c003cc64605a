package live

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// maxSubject caps the text of a call kept in a record's detail.
const maxSubject = 2048

// recorder opens the audit log at the first record.
type recorder struct {
	f     folder.Folder
	st    *userstate.State
	actor string
	core  *hook.Core
	log   *audit.Log
}

func (r *recorder) Record(_ context.Context, rec hook.Record) error {
	if r.log == nil {
		l, err := audit.Open(r.f, r.st)
		if err != nil {
			return err
		}
		r.log = l
		r.core.OnClose(l.Close)
	}
	_, err := r.log.Append(entry(r.actor, rec))
	return err
}

// entry turns a hook record into an audit entry: bounded tokens in the
// fields, free text (capped) in the detail.
func entry(actor string, rec hook.Record) audit.Entry {
	hash := rec.ContentHash
	if hash == "" {
		sum := sha256.Sum256([]byte(rec.Tool + "\x00" + rec.Subject))
		hash = "sha256:" + hex.EncodeToString(sum[:])
	}
	subject := rec.Subject
	if len(subject) > maxSubject {
		subject = subject[:maxSubject] + "…"
	}
	detail := map[string]any{"tool": rec.Tool, "subject": subject}
	for k, v := range map[string]string{"session": rec.Session, "tool_use_id": rec.ToolUseID,
		"reasons": rec.Reasons, "outcome": rec.Outcome} {
		if v != "" {
			detail[k] = v
		}
	}
	return audit.Entry{
		Actor: actor, Event: rec.Event, RequestID: rec.RequestID, Decision: rec.Decision,
		ContentHash: hash, Detail: detail,
	}
}
