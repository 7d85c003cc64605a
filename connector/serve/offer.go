package serve

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// maxOffers bounds the offers a folder keeps for the page to take.
const maxOffers = 32

// OfferView is the rule offered after an approval once the same shape
// has been approved approver.LearnMin times (escaped): the page shows it
// with one key to take it (POST /api/requests/{id}/remember).
type OfferView struct {
	Trigger string `json:"trigger"`
	Pattern string `json:"pattern"`
	Summary string `json:"summary"`
}

// offer is one offer kept until it is taken: the request as approved
// and the suggestion.
type offer struct {
	req  *queue.Request
	sugg policy.Suggestion
}

// makeOffer looks for a rule to offer after req was approved once and
// keeps it for the page; nil when there is none.
func (fs *folderState) makeOffer(ctx context.Context, req *queue.Request) *OfferView {
	if req == nil || fs.s.cfg.State == nil {
		return nil
	}
	_, sugg, ok := approver.Offer(ctx, fs.f, fs.s.cfg.State, req, time.Now())
	if !ok {
		return nil
	}
	fs.mu.Lock()
	if fs.offers == nil || len(fs.offers) >= maxOffers {
		fs.offers = map[string]offer{}
	}
	fs.offers[req.ID] = offer{req: req, sugg: sugg}
	fs.mu.Unlock()
	return &OfferView{Trigger: string(sugg.Trigger), Pattern: display.EscapeLine(sugg.Pattern),
		Summary: display.EscapeLine(sugg.Summary())}
}

// rememberBody is the body of POST /api/requests/{id}/remember: the
// pattern offered, as shown (escaped).
type rememberBody struct {
	Pattern string `json:"pattern"`
}

// handleRemember takes the rule offered after request id's approval:
// only that exact offer, audited (remembered.learned) before it is
// stored as a signed remembered decision.
func (s *Server) handleRemember(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	fs, err := s.folder(r.URL.Query().Get("folder"))
	if err != nil {
		fail(w, err)
		return
	}
	var body rememberBody
	if err := decodeBody(r, &body); err != nil {
		fail(w, err)
		return
	}
	fs.mu.Lock()
	o, ok := fs.offers[id]
	if ok && display.EscapeLine(o.sugg.Pattern) == body.Pattern {
		delete(fs.offers, id)
	}
	fs.mu.Unlock()
	if !ok || display.EscapeLine(o.sugg.Pattern) != body.Pattern {
		fail(w, fmt.Errorf("%w: no such offer for %s", approver.ErrNotFound, id))
		return
	}
	who := fs.ap.Identity()
	if _, err := fs.audit.Append(audit.Entry{Actor: "approver:" + approver.SurfaceServe, Event: "remembered.learned",
		RequestID: id, Decision: "allow", ContentHash: o.req.Hash,
		Detail: map[string]any{"user": who.User, "pattern": o.sugg.Pattern, "trigger": string(o.sugg.Trigger)}}); err != nil {
		fail(w, fmt.Errorf("%w: %w", approver.ErrAuditRefused, err))
		return
	}
	if err := fs.ap.RememberAllow(o.req, o.sugg.Pattern); err != nil {
		fail(w, err)
		return
	}
	if pv := fs.policyChanged(); pv != nil {
		s.hub.publish(Event{Type: EventPolicy, Folder: fs.key, Policy: pv})
	}
	writeJSON(w, http.StatusOK, map[string]string{"remembered": display.EscapeLine(o.sugg.Pattern)})
}
