package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// recentDecisions is how many finished requests sandbox_status lists.
const recentDecisions = 10

// Status is the structuredContent of sandbox_status.
type Status struct {
	Folder  string        `json:"folder"`
	Policy  PolicyStatus  `json:"policy"`
	Pending []RequestInfo `json:"pending"`
	Recent  []RequestInfo `json:"recent"`
	Audit   AuditStatus   `json:"audit"`
	Jail    JailStatus    `json:"jail"`
}

// PolicyStatus summarises the policy in force.
type PolicyStatus struct {
	// State: "accepted", "pending change" (policy.yaml differs from the
	// accepted copy, which stays in force), "nothing accepted", or
	// "unavailable" (the per-user state is out of reach).
	State    string                    `json:"state"`
	SHA256   string                    `json:"sha256,omitempty"` // of the accepted policy in force
	Pending  bool                      `json:"pending_change"`
	Rules    map[string]map[string]int `json:"rules"` // trigger -> tier -> count
	Warnings []string                  `json:"warnings,omitempty"`
}

// RequestInfo is one request, pending or finished.
type RequestInfo struct {
	ID       string    `json:"id"`
	Kind     string    `json:"kind"`
	State    string    `json:"state"` // pending, claimed (being decided or run), or the decision
	Summary  string    `json:"summary"`
	Source   string    `json:"source,omitempty"`
	Created  time.Time `json:"created,omitzero"`
	ExitCode *int      `json:"exit_code,omitempty"`
}

// AuditStatus is the audit log's head and whether it verifies.
type AuditStatus struct {
	Records  int    `json:"records"`
	HeadSeq  uint64 `json:"head_seq"`
	HeadHash string `json:"head_hash,omitempty"`
	Verifies bool   `json:"verifies"`
	Problem  string `json:"problem,omitempty"`
}

// JailStatus says whether the server runs inside `sandbox run`'s jail.
type JailStatus struct {
	Jailed bool   `json:"jailed"`
	Value  string `json:"value,omitempty"` // SANDBOX_JAIL as set by the launcher
}

func (s *Server) handleStatus(_ context.Context, p *callParams) (*ToolResult, error) {
	a := newArgs(p.Arguments)
	if err := a.err(ToolStatus); err != nil {
		return badArguments(err), nil
	}
	st := s.collect()
	return &ToolResult{Content: []TextContent{textBlock(st.text())}, StructuredContent: st}, nil
}

// collect gathers the status; a part that cannot be read says so.
func (s *Server) collect() *Status {
	f := s.opts.Folder
	st := &Status{Folder: f.Root, Pending: []RequestInfo{}, Recent: []RequestInfo{}}
	jv := jailValue(s.opts.Environ)
	st.Jail = JailStatus{Jailed: jv != "", Value: jv}
	us, err := userstate.Open(false)
	if err != nil {
		st.Policy = PolicyStatus{State: "unavailable", Rules: map[string]map[string]int{},
			Warnings: []string{fmt.Sprintf("per-user state: %v; everything but the built-in denials escalates", err)}}
		st.Audit = AuditStatus{Problem: fmt.Sprintf("cannot verify without the per-user key: %v", err)}
	} else {
		st.Policy = s.status.policy(f, us, s.log)
		st.Audit = s.status.audit(f, us)
	}
	var key []byte
	if us != nil {
		key = us.Key
	}
	st.Pending, st.Recent = s.requests(key)
	return st
}

func policySummary(eng *policy.Engine, warns []store.Warning) PolicyStatus {
	ps := PolicyStatus{State: eng.Status().String(), Pending: eng.Status() == policy.StatusPending,
		Rules: map[string]map[string]int{}}
	if p := eng.Policy(); p != nil {
		ps.SHA256 = p.SHA256
		for t, rs := range p.Rules {
			ps.Rules[string(t)] = map[string]int{"allow": len(rs.Allow), "escalate": len(rs.Escalate), "deny": len(rs.Deny)}
		}
	}
	for _, w := range warns {
		ps.Warnings = append(ps.Warnings, w.String())
	}
	return ps
}

func auditSummary(rep *audit.Report) AuditStatus {
	as := AuditStatus{Records: rep.Records, HeadSeq: rep.Head.Seq, HeadHash: rep.Head.Hash, Verifies: rep.OK}
	if rep.FirstBad != nil {
		as.Problem = rep.FirstBad.String()
	}
	return as
}

// requests lists the pending and claimed requests, and the most recent
// finished ones (ids sort by creation time).
func (s *Server) requests(key []byte) (pending, recent []RequestInfo) {
	pending, recent = []RequestInfo{}, []RequestInfo{}
	q, err := queue.Open(s.opts.Folder, queue.WithLogger(s.log), queue.WithKey(key))
	if err != nil {
		return pending, recent
	}
	defer q.Close()
	sums, _ := q.List(queue.StatePending, queue.StateClaimed)
	for _, sm := range sums {
		if _, err := os.Lstat(filepath.Join(s.opts.Folder.Done(), sm.ID+".json")); err == nil {
			continue // decided: its result is written and its claim not yet removed
		}
		pending = append(pending, RequestInfo{ID: sm.ID, Kind: string(sm.Kind), State: string(sm.State),
			Summary: sm.Summary, Source: sm.Source, Created: sm.Created})
	}
	for _, id := range lastDone(s.opts.Folder.Done(), recentDecisions) {
		if res, err := q.Result(id); err == nil {
			recent = append(recent, RequestInfo{ID: id, Kind: string(res.Kind), State: string(res.Decision),
				Summary: res.Summary, Created: res.Requested, ExitCode: res.ExitCode})
		}
	}
	return pending, recent
}

// lastDone returns the ids of the n newest results in done/, newest first.
func lastDone(dir string, n int) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var ids []string
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".json"); ok && queue.ValidID(id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	return ids[:min(n, len(ids))]
}

// text renders the status for a model to read.
func (st *Status) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sandbox folder %s\n", st.Folder)
	fmt.Fprintf(&b, "policy: %s", st.Policy.State)
	if st.Policy.SHA256 != "" {
		fmt.Fprintf(&b, " (sha256 %s)", short(st.Policy.SHA256))
	}
	b.WriteString("\n")
	for _, t := range sortedKeys(st.Policy.Rules) {
		r := st.Policy.Rules[t]
		fmt.Fprintf(&b, "  %s: %d allow, %d escalate, %d deny\n", t, r["allow"], r["escalate"], r["deny"])
	}
	for _, w := range st.Policy.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", w)
	}
	fmt.Fprintf(&b, "pending requests: %d\n", len(st.Pending))
	for _, r := range st.Pending {
		fmt.Fprintf(&b, "  %s [%s] %s\n", r.ID, r.State, r.Summary)
	}
	fmt.Fprintf(&b, "recent decisions: %d\n", len(st.Recent))
	for _, r := range st.Recent {
		fmt.Fprintf(&b, "  %s %s: %s\n", r.ID, r.State, r.Summary)
	}
	fmt.Fprintf(&b, "audit: %d records, head %d %s, verifies: %t", st.Audit.Records, st.Audit.HeadSeq, short(st.Audit.HeadHash), st.Audit.Verifies)
	if st.Audit.Problem != "" {
		fmt.Fprintf(&b, " (%s)", st.Audit.Problem)
	}
	fmt.Fprintf(&b, "\njail: %s\n", map[bool]string{true: "this server runs inside sandbox run's jail", false: "not jailed (connector mode)"}[st.Jail.Jailed])
	return b.String()
}

func short(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 16 {
		return h[:16]
	}
	return h
}

func sortedKeys(m map[string]map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
