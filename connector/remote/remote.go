// Package remote is what the approvers (`sandbox watch --nats`, `sandbox
// serve --nats`) need from team mode: requests waiting on other machines,
// and a way to decide them. cmd/sandbox implements Source over team
// mode's relay protocol (team/relay); the approvers know nothing of NATS.
package remote

import (
	"context"
	"time"
)

// Request is a request waiting on another machine, as its relay
// published it (docs/TEAM.md): Display and Reasons are the relay's,
// Agent, Source and Session what the request's writer said. None of it
// is escaped: the approvers escape what they show.
type Request struct {
	Org, Host, Project, ID string
	Hash, Kind, Summary    string
	Display                string
	Truncated              bool // Display was cut: it can only be approved on its machine
	Reasons                []string
	Agent, Source, Session string
	Created                time.Time
}

// Key names r among every machine's requests.
func (r Request) Key() string { return r.Host + "/" + r.Project + "/" + r.ID }

// Outcome is how a decided request ended on its machine.
type Outcome struct {
	Decision, Approver, Reason string
	ExitCode                   *int
	// Output is the start of the output, shown when none came live.
	Output string
	// Lost says live output went missing on the way (Output is whole up
	// to its limit).
	Lost bool
}

// Source is team mode as an approver sees it.
type Source interface {
	// Pending is what waits now, oldest first.
	Pending() []Request
	// Changes signals (coalesced) that Pending or Status changed.
	Changes() <-chan struct{}
	// Status says whether it is connected, and if not why (nil: still
	// connecting for the first time).
	Status() (bool, error)
	// Decide signs the human's verdict ("approved" or "denied") on r,
	// exactly as it was shown (its hash), and waits for r's machine to
	// carry it out, handing its output to onOutput as it runs.
	Decide(ctx context.Context, r Request, verdict, reason string, onOutput func(stream string, p []byte)) (Outcome, error)
}
