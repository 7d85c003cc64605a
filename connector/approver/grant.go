package approver

import (
	"os"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// GrantFor is the grant of req's jail if it is approved: what the
// escalated parts of the policy's decision on it name (broker.GrantFor),
// decided afresh with the accepted policy (never from the request's own
// reasons, which the agent wrote). env is the environment the command
// will get. Without a policy it grants nothing beyond the project jail.
// broker.Describe renders it for the human.
func (a *Approver) GrantFor(req *queue.Request, env []string) broker.Grant {
	if a.policy == nil {
		return broker.Grant{}
	}
	e, err := a.policy()
	if err != nil || e == nil {
		a.log.Warn("no policy to derive the grant from; the jail grants nothing more", "id", req.ID, "err", err)
		return broker.Grant{}
	}
	home, _ := os.UserHomeDir()
	return broker.GrantFor(Classify(e, req).Parts, a.f.Root, home, env)
}
