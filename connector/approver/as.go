package approver

import (
	"context"
	"fmt"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// SurfaceRelay is a decision taken on another machine and carried by
// team mode's relay (`sandbox relay`), which checked its signature.
const SurfaceRelay = "relay"

// ApproveAs is Approve deciding as who instead of this approver's own
// identity: the relay executes a remote approver's signed decision as
// that approver (the name the folder's policy gives the key), through
// the same claim, audit and execution as every other approval. o's
// ShownHash should be the hash the remote human saw.
func (a *Approver) ApproveAs(ctx context.Context, id string, who Identity, o ApproveOptions) (*queue.Result, error) {
	c, err := a.claim(id, o.ShownHash)
	if err != nil {
		return nil, err
	}
	return a.approveClaimed(ctx, c, who, o, "")
}

// DenyAs is Deny deciding as who.
func (a *Approver) DenyAs(ctx context.Context, id, reason string, who Identity) (*queue.Result, error) {
	return a.deny(ctx, id, reason, who, "")
}

// RecordRefusal audits a decision that came from elsewhere and was not
// carried out (a forged, replayed, stale or out-of-scope one), with why.
func (a *Approver) RecordRefusal(id, hash, event string, detail map[string]any) error {
	_, err := a.audit.Append(audit.Entry{Actor: a.actor(a.id), Event: event, RequestID: id,
		Decision: "refused", ContentHash: hash, Detail: detail})
	if err != nil {
		return fmt.Errorf("%s: %w: %w", id, ErrAuditRefused, err)
	}
	return nil
}
