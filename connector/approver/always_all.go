package approver

import (
	"fmt"

	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// AlwaysRules are the remembered allows that an "always" approval of req
// with o would store in this folder, checked to cover req and attributed
// to this approver's human: what "always, for all agents" stores in the
// other folders of a repository (connector/inbox.RememberAll).
func (a *Approver) AlwaysRules(req *queue.Request, o ApproveOptions) ([]policy.Remembered, error) {
	m, ok := a.memory.(*PolicyMemory)
	if !ok {
		return nil, fmt.Errorf("approve always: %w", ErrNoMemory)
	}
	if len(o.Rules) > 0 {
		return m.partCandidates(req, o.Rules, a.id)
	}
	pattern := o.Pattern
	if pattern == "" {
		p, err := m.Propose(req)
		if err != nil {
			return nil, err
		}
		pattern = p
	}
	r, err := m.candidate(req, pattern, a.id)
	if err != nil {
		return nil, err
	}
	return []policy.Remembered{r}, nil
}
