package approver

import (
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

const rememberedRule = "remembered:"

// PolicyMemory is a folder's remembered decisions as the policy engine
// keeps them: signed with the per-user key in the per-folder state dir.
// Each call loads the engine afresh, so decisions remembered by other
// approvers (and a newly accepted policy) apply at once.
type PolicyMemory struct {
	f   folder.Folder
	st  *userstate.State
	log *slog.Logger
}

var _ Memory = (*PolicyMemory)(nil)

// NewPolicyMemory returns the remembered decisions of f.
func NewPolicyMemory(f folder.Folder, st *userstate.State, log *slog.Logger) *PolicyMemory {
	return &PolicyMemory{f: f, st: st, log: log}
}

func (m *PolicyMemory) engine(extra ...policy.Remembered) (*policy.Engine, error) {
	e, _, err := store.LoadWith(m.f, m.st, policy.Options{Remembered: extra, Logger: m.log})
	return e, err
}

// Match reports a remembered decision covering req: a deny that a
// remembered rule decided, or an allow that needed one (an allow by the
// policy alone does not approve an escalated request by itself).
func (m *PolicyMemory) Match(req *queue.Request) (Remembered, bool) {
	e, err := m.engine()
	if err != nil {
		m.log.Warn("remembered decisions unavailable", "err", err)
		return Remembered{}, false
	}
	d := Classify(e, req)
	for _, p := range d.Parts {
		pattern, ok := strings.CutPrefix(p.Rule, rememberedRule)
		if ok && p.Decision == d.Decision && (d.Decision == policy.Allow || d.Decision == policy.Deny) {
			return Remembered{Allow: d.Decision == policy.Allow, Pattern: pattern}, true
		}
	}
	return Remembered{}, false
}

// Propose returns the narrowest pattern of req's one escalated part.
func (m *PolicyMemory) Propose(req *queue.Request) (string, error) {
	part, err := m.escalated(req)
	if err != nil {
		return "", err
	}
	return part.Propose, nil
}

// escalated is the single part of req that escalates and can be
// remembered.
func (m *PolicyMemory) escalated(req *queue.Request) (policy.Part, error) {
	e, err := m.engine()
	if err != nil {
		return policy.Part{}, err
	}
	var found []policy.Part
	for _, p := range Classify(e, req).Parts {
		if p.Decision == policy.Escalate {
			found = append(found, p)
		}
	}
	switch {
	case len(found) != 1:
		return policy.Part{}, fmt.Errorf("%w: %d parts escalate (approve them once)", ErrNoPattern, len(found))
	case found[0].Propose == "":
		return policy.Part{}, fmt.Errorf("%w: %s (%s)", ErrNoPattern, found[0].Subject, found[0].Reason)
	}
	return found[0], nil
}

// Check reports whether an allow of pattern would cover req.
func (m *PolicyMemory) Check(req *queue.Request, pattern string) error {
	_, err := m.candidate(req, pattern, Identity{})
	return err
}

// Remember stores a signed allow of pattern for the trigger of req's
// escalated part, after checking that it covers req.
func (m *PolicyMemory) Remember(req *queue.Request, pattern string, who Identity) error {
	r, err := m.candidate(req, pattern, who)
	if err != nil {
		return err
	}
	return store.Remember(m.f, m.st, r)
}

// candidate is the remembered allow of pattern for req, checked to
// compile and to cover req.
func (m *PolicyMemory) candidate(req *queue.Request, pattern string, who Identity) (policy.Remembered, error) {
	part, err := m.escalated(req)
	if err != nil {
		return policy.Remembered{}, err
	}
	r := policy.Remembered{Trigger: part.Trigger, Tier: policy.Allow, Pattern: pattern}
	if who.User != "" {
		r.By, r.Reason = who.User, "approved always by "+who.User
	}
	e, err := m.engine(r)
	if err != nil {
		return policy.Remembered{}, fmt.Errorf("%w: %w", ErrNoPattern, err)
	}
	if d := Classify(e, req); d.Decision != policy.Allow {
		return policy.Remembered{}, fmt.Errorf("%w: pattern %q does not cover this request", ErrNoPattern, pattern)
	}
	return r, nil
}

// Classify asks engine e about req, by kind.
func Classify(e *policy.Engine, req *queue.Request) policy.Decision {
	switch {
	case req.Kind == queue.KindShell && req.Shell != nil && len(req.Shell.Argv) > 0:
		return e.Argv(req.Shell.Argv, req.Cwd)
	case req.Kind == queue.KindShell && req.Shell != nil:
		return e.Shell(req.Shell.Script, req.Cwd)
	case req.Kind == queue.KindWrite && req.Write != nil:
		return e.Write(req.Write.Path, req.Cwd)
	case req.Kind == queue.KindRead && req.Read != nil:
		return e.Read(req.Read.Path, req.Cwd)
	case req.Kind == queue.KindNetwork && req.Network != nil && req.Network.URL != "":
		return e.NetworkURL(req.Network.URL)
	case req.Kind == queue.KindNetwork && req.Network != nil:
		return e.Network(net.JoinHostPort(req.Network.Host, strconv.Itoa(req.Network.Port)))
	case req.Kind == queue.KindMCP && req.MCP != nil:
		return e.MCP(req.MCP.Tool)
	}
	return policy.Decision{Decision: policy.Escalate, Reasons: []string{"unknown request kind"}}
}
