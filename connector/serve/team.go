package serve

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/remote"
)

// Team is team mode for the dashboard (`sandbox serve --nats`,
// docs/TEAM.md): the requests of every machine the approver's
// credentials reach, shown on a page of their own (web/team.html),
// decided with the approver's key; an approval runs on its machine and
// its output comes back live. Set Config.Team and no folders.
type Team struct {
	// Where names what is served (the organisation), As the approver
	// (the key's public half).
	Where, As string
	Source    remote.Source
}

// Team mode's events on /api/events.
const (
	EventTeam        = "team"         // what waits or the connection changed: GET /api/team again
	EventTeamOutput  = "team.output"  // live output of a request approved here (ID is its key; Stream, Text)
	EventTeamOutcome = "team.outcome" // how a request decided here ended (ID is its key; Outcome)
)

// TeamRequestView is a remote request as GET /api/team shows it,
// every text escaped.
type TeamRequestView struct {
	Key       string    `json:"key"` // HOST/PROJECT/ID: the routes' name for it
	Org       string    `json:"org"`
	Host      string    `json:"host"`
	Project   string    `json:"project"`
	ID        string    `json:"id"`
	Hash      string    `json:"hash"`
	Kind      string    `json:"kind"`
	Summary   string    `json:"summary"`
	Display   string    `json:"display"`
	Truncated bool      `json:"truncated,omitempty"`
	Reasons   []string  `json:"reasons,omitempty"`
	Agent     string    `json:"agent,omitempty"`
	Source    string    `json:"source,omitempty"`
	Session   string    `json:"session,omitempty"`
	Created   time.Time `json:"created"`
	// Deciding is set while a decision made here travels or runs.
	Deciding bool `json:"deciding,omitempty"`
}

// TeamView is GET /api/team.
type TeamView struct {
	Where     string            `json:"where"`
	As        string            `json:"as"`
	Connected bool              `json:"connected"`
	Error     string            `json:"error,omitempty"`
	Requests  []TeamRequestView `json:"requests"`
}

// TeamOutcomeView is how a request decided here ended.
type TeamOutcomeView struct {
	Decision string `json:"decision,omitempty"`
	Approver string `json:"approver,omitempty"`
	Reason   string `json:"reason,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Output   string `json:"output,omitempty"` // its start, when none came live
	Lost     bool   `json:"lost,omitempty"`
	Error    string `json:"error,omitempty"` // refused, or no outcome
}

// teamState is what the server keeps in team mode.
type teamState struct {
	mu sync.Mutex
	// deciding are the keys decided here whose outcome has not come
	// (guarded by mu): decided once from this page.
	deciding map[string]bool
}

func (s *Server) teamRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", s.handleTeamIndex)
	mux.HandleFunc("GET /api/team", s.handleTeam)
	mux.HandleFunc("POST /api/team/{host}/{project}/{id}/approve", s.handleTeamApprove)
	mux.HandleFunc("POST /api/team/{host}/{project}/{id}/deny", s.handleTeamDeny)
}

// followTeam tells the pages when what waits changes.
func (s *Server) followTeam(ctx context.Context) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ch := s.cfg.Team.Source.Changes()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				s.hub.publish(Event{Type: EventTeam})
			}
		}
	}()
}

func (s *Server) handleTeamIndex(w http.ResponseWriter, r *http.Request) {
	servePage(w, "web/team.html")
}

func (s *Server) handleTeam(w http.ResponseWriter, r *http.Request) {
	src := s.cfg.Team.Source
	up, err := src.Status()
	v := TeamView{Where: display.EscapeLine(s.cfg.Team.Where), As: display.EscapeLine(s.cfg.Team.As), Connected: up, Requests: []TeamRequestView{}}
	if err != nil {
		v.Error = display.EscapeLine(err.Error())
	}
	s.team.mu.Lock()
	deciding := maps.Clone(s.team.deciding)
	s.team.mu.Unlock()
	for _, rq := range src.Pending() {
		v.Requests = append(v.Requests, teamRequestView(rq, deciding[rq.Key()]))
	}
	writeJSON(w, http.StatusOK, v)
}

func teamRequestView(r remote.Request, deciding bool) TeamRequestView {
	reasons := make([]string, len(r.Reasons))
	for i, why := range r.Reasons {
		reasons[i] = display.EscapeLine(why)
	}
	return TeamRequestView{Key: r.Key(), Org: display.EscapeLine(r.Org), Host: display.EscapeLine(r.Host), Project: display.EscapeLine(r.Project),
		ID: display.EscapeLine(r.ID), Hash: display.EscapeLine(r.Hash), Kind: display.EscapeLine(r.Kind), Summary: display.EscapeLine(r.Summary),
		Display: display.Escape(r.Display), Truncated: r.Truncated, Reasons: reasons, Agent: display.EscapeLine(r.Agent),
		Source: display.EscapeLine(r.Source), Session: display.EscapeLine(r.Session), Created: r.Created, Deciding: deciding}
}

var (
	errTeamGone      = errors.New("no such request waits any more (decided elsewhere, withdrawn or expired)")
	errTeamCut       = errors.New("its display was cut: approve it on its machine, where it is shown whole")
	errTeamDeciding  = errors.New("decided from this page already; its outcome is on the way")
	errTeamDisplayed = errors.New("the request waiting is not the one shown: reload it and look again")
)

// teamFind is the waiting request the route names.
func (s *Server) teamFind(r *http.Request) (remote.Request, error) {
	key := r.PathValue("host") + "/" + r.PathValue("project") + "/" + r.PathValue("id")
	pending := s.cfg.Team.Source.Pending()
	i := slices.IndexFunc(pending, func(q remote.Request) bool { return q.Key() == key })
	if i < 0 {
		return remote.Request{}, errTeamGone
	}
	return pending[i], nil
}

func (s *Server) handleTeamApprove(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Hash string `json:"hash"`
	}
	if err := decodeBody(r, &body); err != nil {
		fail(w, err)
		return
	}
	rq, err := s.teamFind(r)
	switch {
	case err != nil:
		writeError(w, http.StatusNotFound, "not_found", err.Error())
	case body.Hash == "":
		writeError(w, http.StatusConflict, "hash_required", "an approval names the content hash it was shown")
	case body.Hash != rq.Hash:
		writeError(w, http.StatusConflict, "changed", errTeamDisplayed.Error())
	case rq.Truncated:
		writeError(w, http.StatusConflict, "cut", errTeamCut.Error())
	default:
		s.teamDecide(w, rq, "approved", "")
	}
}

func (s *Server) handleTeamDeny(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Reason string `json:"reason"`
	}
	if err := decodeBody(r, &body); err != nil {
		fail(w, err)
		return
	}
	rq, err := s.teamFind(r)
	if err != nil {
		writeError(w, http.StatusNotFound, "not_found", err.Error())
		return
	}
	s.teamDecide(w, rq, "denied", body.Reason)
}

// teamDecide sends the decision and answers 202; its live output and its
// outcome come as events.
func (s *Server) teamDecide(w http.ResponseWriter, rq remote.Request, verdict, reason string) {
	key := rq.Key()
	s.team.mu.Lock()
	if s.team.deciding[key] {
		s.team.mu.Unlock()
		writeError(w, http.StatusConflict, "already_taken", errTeamDeciding.Error())
		return
	}
	s.team.deciding[key] = true
	s.team.mu.Unlock()
	s.hub.publish(Event{Type: EventTeam})
	s.execute(func(ctx context.Context) {
		defer func() {
			s.team.mu.Lock()
			delete(s.team.deciding, key)
			s.team.mu.Unlock()
			s.hub.publish(Event{Type: EventTeam})
		}()
		out, err := s.cfg.Team.Source.Decide(ctx, rq, verdict, reason, func(stream string, p []byte) {
			s.hub.publish(Event{Type: EventTeamOutput, ID: key, Stream: stream, Text: display.Escape(string(p))})
		})
		v := &TeamOutcomeView{Decision: display.EscapeLine(out.Decision), Approver: display.EscapeLine(out.Approver),
			Reason: display.EscapeLine(out.Reason), ExitCode: out.ExitCode, Output: display.Escape(out.Output), Lost: out.Lost}
		if err != nil {
			v = &TeamOutcomeView{Error: display.EscapeLine(err.Error())}
		}
		s.hub.publish(Event{Type: EventTeamOutcome, ID: key, Team: v})
	})
	writeJSON(w, http.StatusAccepted, map[string]string{"key": key, "state": "sent"})
}
