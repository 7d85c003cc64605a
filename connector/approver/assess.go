package approver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Everything in a request file is untrusted: any process that could
// write .sandbox/escalations/ (the agent, its jail, anything running as
// the user) can plant one, with any source, session, justification and
// policy reasons it likes. So an approver never shows those fields as
// facts. It shows what it recomputes from what the request asks (the
// command, path, host or tool) with the policy in force, says where the
// request really comes from, and labels the file's own claims as claims.

// UnverifiedOrigin is the origin of every request today: no writer
// authenticates it (a hook holding the per-user key could, but a request
// from a jail never can, and the two must not be told apart by a field
// the jail could copy).
const UnverifiedOrigin = "unverified: written by a process that could write .sandbox/escalations (the agent, its jail, or anything running as you)"

// Assessment is what an approver displays about a request instead of the
// request's own claims.
type Assessment struct {
	// Decision is the policy's decision recomputed from the request's
	// command, path, host or tool (tier, reasons and parts), never the
	// reasons the file carries.
	Decision policy.Decision
	// Origin says where the request really comes from (UnverifiedOrigin).
	Origin string
	// Claims is what the file says about itself (source, agent,
	// session), to be shown labelled as a claim, escaped.
	Claims string
	// Refused, when not empty, says why executing the request will be
	// refused whatever the human decides: it targets the sandbox's own
	// protection (the per-user state, .sandbox/, the policy, the audit
	// log). Approvers should offer only "deny" for it.
	Refused string
}

// Assess recomputes what an approver shows about req. e is the policy in
// force for req's folder; nil (none loaded) classifies with the built-in
// rules alone, which escalate everything but what they deny.
func Assess(e *policy.Engine, f folder.Folder, req *queue.Request) Assessment {
	if e == nil {
		e = builtinEngine(f)
	}
	a := Assessment{Origin: UnverifiedOrigin, Claims: claims(req)}
	if e != nil {
		a.Decision = Classify(e, req)
	} else {
		a.Decision = policy.Decision{Decision: policy.Escalate, Reasons: []string{"the policy could not be built"}}
	}
	a.Refused = SelfProtected(f, req)
	return a
}

func claims(req *queue.Request) string {
	parts := []string{fmt.Sprintf("source %q", req.Source)}
	if req.Agent != "" {
		parts = append(parts, fmt.Sprintf("agent %q", req.Agent))
	}
	if req.Session != "" {
		parts = append(parts, fmt.Sprintf("session %q", req.Session))
	}
	return "the request says: " + strings.Join(parts, ", ") + " (not verified)"
}

// builtinEngine classifies with the built-in rules only (self-protection,
// cloud metadata), which no policy.yaml can remove; nil if it cannot be
// built.
func builtinEngine(f folder.Folder) *policy.Engine {
	e, err := policy.New(f.Root, nil, policy.Options{})
	if err != nil {
		return nil
	}
	return e
}

// SelfProtected says why req must never be executed, or "": it reads or
// writes inside the per-user state dir or any .sandbox/ directory (the
// bus, the policy, the audit log, results), or it is a command the
// built-in self-protection rules deny. It is checked at execution time,
// after the human's decision, so that no click, remembered decision or
// CI rule can get past it. (A command's effects are known only as well
// as the shell analyzer reads them; the grant jail is what contains a
// command the analyzer misread.)
func SelfProtected(f folder.Folder, req *queue.Request) string {
	switch {
	case req.Kind == queue.KindRead && req.Read != nil:
		return protectedPath(f, req.Read.Path)
	case req.Kind == queue.KindWrite && req.Write != nil:
		return protectedPath(f, req.Write.Path)
	case req.Kind == queue.KindShell:
		e := builtinEngine(f)
		if e == nil {
			return "the built-in self-protection rules could not be built"
		}
		for _, p := range Classify(e, req).Parts {
			if p.Decision == policy.Deny && p.Rule == "builtin:self-protection" {
				return p.Subject + ": " + p.Reason
			}
		}
	}
	return ""
}

// protectedPath says why the absolute path p (links resolved as far as
// it exists) is the sandbox's own, or "". Inside the folder f only what
// lies below its root counts: an agent's worktree (MAIN/.sandbox/
// worktrees/NAME) is a folder inside MAIN's .sandbox/.
func protectedPath(f folder.Folder, p string) string {
	if !filepath.IsAbs(p) {
		return "" // refused later as not absolute
	}
	real := resolveExisting(filepath.Clean(p))
	for _, c := range []string{filepath.Clean(p), real} {
		below := c
		if rel, err := filepath.Rel(f.Root, c); err == nil && f.Root != "" && folder.Within(f.Root, c) {
			below = rel
		}
		for _, seg := range strings.Split(below, string(filepath.Separator)) {
			if strings.EqualFold(seg, folder.DirName) {
				return c + ": inside a .sandbox/ directory (the bus, the policy, the audit log, results)"
			}
		}
		if state, err := userstate.DefaultDir(); err == nil {
			for _, s := range []string{filepath.Clean(state), resolveExisting(filepath.Clean(state))} {
				if c == s || strings.HasPrefix(strings.ToLower(c), strings.ToLower(s)+string(filepath.Separator)) {
					return c + ": inside the per-user state dir (the key, accepted policies, audit anchors)"
				}
			}
		}
	}
	return ""
}

// resolveExisting resolves the links of the longest existing prefix of p
// and appends the rest.
func resolveExisting(p string) string {
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if _, err := os.Lstat(dir); err == nil || filepath.Dir(dir) == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// refuseProtected ends a claimed request that targets the sandbox's own
// protection: audited, completed as denied with the reason, never run.
func (a *Approver) refuseProtected(c *queue.Claim, who Identity, why string) (*queue.Result, error) {
	reason := "refused whatever was approved: " + why
	if err := a.record(who, "request.refused", c, "denied", map[string]any{"user": who.User, "reason": reason}); err != nil {
		a.log.Error("a refusal could not be audited", "id", c.ID(), "err", err)
	}
	res := &queue.Result{Decision: queue.Denied, Approver: who.queueApprover(), Reason: reason}
	if err := c.Complete(res); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", c.ID(), ErrSelfProtected, err)
	}
	return res, fmt.Errorf("%s: %w: %s", c.ID(), ErrSelfProtected, why)
}
