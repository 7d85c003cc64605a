package inbox

import (
	"errors"
	"fmt"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Target is one folder an "always, for all agents" decision is stored in,
// with the audit log its record goes to.
type Target struct {
	Folder folder.Folder
	Audit  audit.Appender
}

// Shared is an "always, for all agents" decision: the remembered allows
// an approval stored in the folder of the request it approved (From),
// to be stored in the others.
type Shared struct {
	Rules     []policy.Remembered
	From      Tag
	RequestID string
	Hash      string // the approved request's content hash
	Actor     string // approver:watch, approver:serve
	User      string
}

// RememberAll stores d's rules in every target: MAIN's folder and each
// agent's. Each is audited in the target's log first (nothing is stored
// where the record cannot be written) and signed for its folder with the
// per-user key, exactly as an "always" approval in that folder signs it:
// each folder's engine applies it, and a copy moved to another folder is
// ignored. It goes on past a folder that fails and returns every failure.
func RememberAll(targets []Target, st *userstate.State, d Shared) error {
	var errs []error
	for _, t := range targets {
		for _, r := range d.Rules {
			_, err := t.Audit.Append(audit.Entry{Actor: d.Actor, Event: "remembered.shared", RequestID: d.RequestID,
				Decision: "allow", ContentHash: d.Hash, Detail: map[string]any{"user": d.User, "pattern": r.Pattern,
					"trigger": string(r.Trigger), "from_agent": d.From.Agent, "from": d.From.Worktree}})
			if err == nil {
				err = store.Remember(t.Folder, st, r)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", t.Folder.Root, err))
			}
		}
	}
	return errors.Join(errs...)
}
