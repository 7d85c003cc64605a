package queue

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Summary is one line of `sandbox list`: what a request asks, where it
// is, and how it ended. Summary is escaped and truncated.
type Summary struct {
	ID       string    `json:"id"`
	Kind     Kind      `json:"kind"`
	State    State     `json:"state"`
	Summary  string    `json:"summary"`
	Created  time.Time `json:"created"`
	Source   string    `json:"source,omitempty"`
	Agent    string    `json:"agent,omitempty"`
	Session  string    `json:"session,omitempty"`
	Hash     string    `json:"hash,omitempty"`
	Decision Decision  `json:"decision,omitempty"`
	ExitCode *int      `json:"exit_code,omitempty"`
}

// SummaryOf describes a request in state s.
func SummaryOf(r *Request, s State) Summary {
	return Summary{ID: r.ID, Kind: r.Kind, State: s, Summary: Summarize(r), Created: r.Created,
		Source: r.Source, Agent: r.Agent, Session: r.Session, Hash: r.Hash}
}

// ResultSummary describes a finished request from its result.
func ResultSummary(res *Result) Summary {
	return Summary{ID: res.ID, Kind: res.Kind, State: StateDone, Summary: res.Summary,
		Created: res.Requested, Session: res.Session, Hash: res.RequestHash,
		Decision: res.Decision, ExitCode: res.ExitCode}
}

// List returns the requests in the given states (all three when none is
// given) sorted by id, with the problems met (bad files are quarantined).
// It runs Recover first.
func (q *Queue) List(states ...State) ([]Summary, []Problem) {
	if len(states) == 0 {
		states = []State{StatePending, StateClaimed, StateDone}
	}
	problems := q.Recover()
	var out []Summary
	for _, s := range states {
		var more []Problem
		if s == StateDone {
			out, more = q.listDone(out)
		} else {
			var reqs []*Request
			reqs, more = q.scan(s)
			for _, r := range reqs {
				out = append(out, SummaryOf(r, s))
			}
		}
		problems = append(problems, more...)
	}
	slices.SortStableFunc(out, func(a, b Summary) int { return strings.Compare(a.ID, b.ID) })
	return out, problems
}

func (q *Queue) listDone(out []Summary) ([]Summary, []Problem) {
	names, err := readNames(q.f.Done())
	if err != nil {
		return out, []Problem{{State: StateDone, Name: ".", Err: err}}
	}
	var problems []Problem
	for _, name := range names {
		path := filepath.Join(q.f.Done(), name)
		id := idFromName(name)
		if id == "" {
			problems = append(problems, q.problem(StateDone, path, badFile("not a result file name")))
			continue
		}
		res, err := q.readResult(id)
		switch {
		case err == nil:
			out = append(out, ResultSummary(res))
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrNotFound):
			problems = append(problems, q.problem(StateDone, path, err))
		}
	}
	return out, problems
}
