package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/display/review"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// approveBody is the body of POST /api/requests/{id}/approve. Hash, the
// content hash the human saw, is required: an approval without it, or
// with a hash the request does not have now, is 409 and nothing runs (an
// approval that named nothing would run whatever the file holds by then).
type approveBody struct {
	Always  bool   `json:"always"`
	Pattern string `json:"pattern"`
	// Rules, for "always" of a request with several escalated parts, is
	// one pattern per part in the order review.always lists them.
	Rules []ruleBody `json:"rules"`
	Hash  string     `json:"hash"`
	// StaleOK approves a request nobody waits for any more (its output
	// would reach no one); without it such an approval is 409 (stale).
	StaleOK bool `json:"stale_ok"`
	// AllAgents, with Always, stores the remembered decision in MAIN's
	// folder and every agent's too (in a repository's inbox).
	AllAgents bool `json:"all_agents"`
	// Batch approves, once each, the same request pending in the other
	// agents' folders (GET /api/batches), each in its own folder.
	Batch bool `json:"batch"`
}

// ruleBody is one part's rule of an "always" approval.
type ruleBody struct {
	Trigger string `json:"trigger"`
	Pattern string `json:"pattern"`
}

// decisionView answers an approve or a deny.
type decisionView struct {
	ID      string      `json:"id"`
	Folder  string      `json:"folder"`
	Result  *ResultView `json:"result,omitempty"`
	Warning string      `json:"warning,omitempty"`
	// Offer is the rule offered after an approval once (the same shape
	// approved approver.LearnMin times); never taken without the human.
	Offer *OfferView `json:"offer,omitempty"`
	// Batch is how the same request ended in the other agents' folders
	// (a batch approval).
	Batch []BatchResult `json:"batch,omitempty"`
}

// handleApprove claims the request and executes it in this process,
// through the approver, exactly as `sandbox watch` does. It answers when
// the execution has ended (its output streams on /api/events and
// /api/requests/{id}/output meanwhile); a client that goes away does not
// stop the execution. Losing the claim to another approver is 409.
func (s *Server) handleApprove(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	fs, err := s.locate(r.URL.Query().Get("folder"), id)
	if err != nil {
		fail(w, err)
		return
	}
	var body approveBody
	if err := decodeBody(r, &body); err != nil {
		fail(w, err)
		return
	}
	if err := fs.checkShown(id, body.Hash); err != nil {
		fail(w, err)
		return
	}
	if why := review.Stale(fs.f, id); why != "" && !body.StaleOK {
		fail(w, fmt.Errorf("%w: %s", errStale, why))
		return
	}
	opts := fs.approveOptions(id, body)
	req := fs.cached(id)
	rules, sib, err := s.inboxScope(fs, req, body, opts)
	if err != nil {
		fail(w, err)
		return
	}
	type outcome struct {
		res   *queue.Result
		err   error
		offer *OfferView
		batch []BatchResult
	}
	done := make(chan outcome, 1)
	s.execute(func(ctx context.Context) {
		res, err := fs.ap.Approve(ctx, id, opts)
		var o *OfferView
		if err == nil && !opts.Always && res != nil && res.Decision == queue.Approved && !body.Batch {
			o = fs.makeOffer(ctx, req)
		}
		if rules != nil && res != nil && res.Always != "" {
			if rerr := s.rememberAll(fs, req, rules); rerr != nil {
				err = errors.Join(err, fmt.Errorf("%w: not for every agent: %w", approver.ErrNotRemembered, rerr))
			}
		}
		var batch []BatchResult
		if body.Batch && res != nil && res.Decision == queue.Approved {
			batch = s.approveSiblings(ctx, sib)
		}
		done <- outcome{res, err, o, batch}
	})
	select {
	case o := <-done:
		answerBatch(w, fs, id, o.res, o.err, o.offer, o.batch)
	case <-r.Context().Done(): // the execution goes on
	}
}

// inboxScope checks an approval for all agents (the rules it will store
// everywhere) or of a batch (the siblings it will approve too): both
// only in a repository's inbox, and a batch is approved once.
func (s *Server) inboxScope(fs *folderState, req *queue.Request, body approveBody, opts approver.ApproveOptions) ([]policy.Remembered, []member, error) {
	if !body.AllAgents && !body.Batch {
		return nil, nil, nil
	}
	switch {
	case fs.tag == nil:
		return nil, nil, fmt.Errorf("%w: all_agents and batch need a repository's inbox (serve without a folder named)", errBadBody)
	case req == nil:
		return nil, nil, fmt.Errorf("%s: %w", fs.f.Root, approver.ErrNotFound)
	case body.AllAgents && !body.Always:
		return nil, nil, fmt.Errorf("%w: all_agents goes with always", errBadBody)
	case body.Batch && body.Always:
		return nil, nil, fmt.Errorf("%w: a batch is approved once (always for all agents settles them all)", errBadBody)
	}
	if body.Batch {
		return nil, s.siblings(fs, req), nil
	}
	rules, err := fs.ap.AlwaysRules(req, opts)
	return rules, nil, err
}

// checkShown refuses an approval that does not carry the hash the
// request has now, before anything is claimed: a wrong hash is the
// client's mistake (or a stale page), not a changed file, so the request
// stays pending. A file that changes between this check and the claim is
// caught by the claim (ClaimShown) and quarantined.
func (fs *folderState) checkShown(id, hash string) error {
	req, st, err := fs.q.Load(id)
	switch {
	case hash == "" && errors.Is(err, queue.ErrNotFound):
		return err
	case hash == "":
		return errNoHash
	case err != nil || st != queue.StatePending || req == nil:
		return nil // the claim reports it (taken, decided, not found)
	case req.Hash != hash:
		return fmt.Errorf("%w: the request's hash is %.12s…, the approval names %.12s…", errHashMismatch, req.Hash, display.EscapeLine(hash))
	}
	return nil
}

// approveOptions turns the body into the approver's options. A pattern
// equal to the escaped proposal (or the escaped general pattern) stands
// for the pattern itself.
func (fs *folderState) approveOptions(id string, b approveBody) approver.ApproveOptions {
	o := approver.ApproveOptions{ShownHash: b.Hash, Always: b.Always, Pattern: b.Pattern}
	req := fs.cached(id)
	if req == nil {
		return o
	}
	if o.Always && len(b.Rules) > 0 {
		o.Rules = fs.partRules(req, b.Rules)
		return o
	}
	if o.Always && o.Pattern != "" {
		if p, err := fs.ap.Propose(req); err == nil && display.EscapeLine(p) == o.Pattern {
			o.Pattern = p
			return o
		}
		// The general pattern offered beside it (review.Review.Always).
		if prs := fs.src.Facts(req).Always; len(prs) == 1 && prs[0].General != "" && display.EscapeLine(prs[0].General) == o.Pattern {
			o.Pattern = prs[0].General
		}
	}
	return o
}

// partRules turns the rules sent for each escalated part into remembered
// allows: a pattern equal to the escaped exact or general pattern shown
// for that part stands for the pattern itself; any other is taken as
// typed (the approver checks that each lifts a part and that together
// they cover the request).
func (fs *folderState) partRules(req *queue.Request, rules []ruleBody) []policy.Remembered {
	props := fs.src.Facts(req).Always
	out := make([]policy.Remembered, len(rules))
	for i, r := range rules {
		out[i] = policy.Remembered{Trigger: policy.Trigger(r.Trigger), Tier: policy.Allow, Pattern: r.Pattern}
		if i >= len(props) || string(props[i].Trigger) != r.Trigger {
			continue
		}
		for _, p := range []string{props[i].Exact, props[i].General} {
			if p != "" && display.EscapeLine(p) == r.Pattern {
				out[i].Pattern = p
			}
		}
	}
	return out
}

// cached is the pending request id as last shown, or nil.
func (fs *folderState) cached(id string) *queue.Request {
	fs.refresh()
	p, _ := fs.track.snapshot()
	for _, e := range p {
		if e.req.ID == id {
			return e.req
		}
	}
	return nil
}

// answer writes how a decision ended: the result with 200, or the error
// with its status (and the result when there is one, such as a deny that
// reached the request first).
func answer(w http.ResponseWriter, fs *folderState, id string, res *queue.Result, err error) {
	answerOffer(w, fs, id, res, err, nil)
}

// answerOffer is answer with the rule offered after an approval.
func answerOffer(w http.ResponseWriter, fs *folderState, id string, res *queue.Result, err error, o *OfferView) {
	answerBatch(w, fs, id, res, err, o, nil)
}

// answerBatch is answerOffer with how the siblings of a batch ended.
func answerBatch(w http.ResponseWriter, fs *folderState, id string, res *queue.Result, err error, o *OfferView, batch []BatchResult) {
	v := decisionView{ID: id, Folder: fs.key, Result: viewResult(res), Offer: o, Batch: batch}
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, v)
	case res != nil && (errors.Is(err, approver.ErrNotRemembered) || errors.Is(err, approver.ErrAuditRefused)):
		v.Warning = display.EscapeLine(err.Error())
		writeJSON(w, http.StatusOK, v)
	default:
		status, code := errStatus(err)
		writeJSON(w, status, struct {
			apiError
			decisionView
		}{apiError{Error: display.EscapeLine(err.Error()), Code: code}, v})
	}
}

// denyBody is the optional body of POST /api/requests/{id}/deny.
type denyBody struct {
	Reason string `json:"reason"`
}

// handleDeny denies the request with an optional reason for the model.
// A deny wins over an approval that has not started; one too late (the
// request already runs) is 409.
func (s *Server) handleDeny(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	fs, err := s.locate(r.URL.Query().Get("folder"), id)
	if err != nil {
		fail(w, err)
		return
	}
	var body denyBody
	if err := decodeBody(r, &body); err != nil {
		fail(w, err)
		return
	}
	res, err := fs.ap.Deny(r.Context(), id, body.Reason)
	answer(w, fs, id, res, err)
}
