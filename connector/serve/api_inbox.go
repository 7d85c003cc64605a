package serve

import (
	"context"
	"net/http"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/inbox"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// notify tells the notifier this folder's pending requests (it notifies
// when its agent starts waiting).
func (fs *folderState) notify() {
	if fs.s.cfg.Notify == nil || fs.tag == nil {
		return
	}
	p, _ := fs.track.snapshot()
	reqs := make([]*queue.Request, 0, len(p))
	for _, e := range p {
		reqs = append(reqs, e.req)
	}
	tag := *fs.tag
	tag.State = fs.state()
	fs.s.cfg.Notify.Update(tag, reqs)
}

// member is one request of a batch.
type member struct {
	fs  *folderState
	req *queue.Request
}

// siblings are the pending requests of other folders that ask what req
// (of fs) asks: the same batch key (inbox.BatchKey).
func (s *Server) siblings(fs *folderState, req *queue.Request) []member {
	if fs.tag == nil {
		return nil
	}
	key := inbox.BatchKey(fs.f.Root, req)
	var out []member
	for _, o := range s.list() {
		if o == fs || o.tag == nil {
			continue
		}
		o.refresh()
		p, _ := o.track.snapshot()
		for _, e := range p {
			if inbox.BatchKey(o.f.Root, e.req) == key {
				out = append(out, member{o, e.req})
			}
		}
	}
	return out
}

// BatchView is one entry of GET /api/batches: the same request pending
// in several agents' folders, to be approved once for all of them.
type BatchView struct {
	Key      string       `json:"key"`
	Summary  string       `json:"summary"`
	Requests []BatchEntry `json:"requests"`
}

// BatchEntry is one request of a batch.
type BatchEntry struct {
	ID     string `json:"id"`
	Folder string `json:"folder"`
	Agent  string `json:"agent"`
	Hash   string `json:"hash"`
}

// handleBatches is GET /api/batches: {"batches": [...]}, the requests
// pending in more than one folder of the inbox with the same batch key.
func (s *Server) handleBatches(w http.ResponseWriter, r *http.Request) {
	byKey := map[string]*BatchView{}
	var order []string
	for _, fs := range s.list() {
		if fs.tag == nil {
			continue
		}
		fs.refresh()
		p, _ := fs.track.snapshot()
		for _, e := range p {
			k := inbox.BatchKey(fs.f.Root, e.req)
			b := byKey[k]
			if b == nil {
				b = &BatchView{Key: k, Summary: queue.Summarize(e.req)}
				byKey[k] = b
				order = append(order, k)
			}
			b.Requests = append(b.Requests, BatchEntry{ID: e.req.ID, Folder: fs.key, Agent: e.view.Agent, Hash: e.view.Hash})
		}
	}
	out := []BatchView{}
	for _, k := range order {
		if len(byKey[k].Requests) > 1 {
			out = append(out, *byKey[k])
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"batches": out})
}

// BatchResult is how one sibling of a batch approval ended.
type BatchResult struct {
	ID     string      `json:"id"`
	Folder string      `json:"folder"`
	Agent  string      `json:"agent"`
	Result *ResultView `json:"result,omitempty"`
	Error  string      `json:"error,omitempty"`
}

// approveSiblings approves every sibling once, each in its own folder
// with its own content hash; one that would be refused or that nobody
// waits for any more is left pending for its own decision.
func (s *Server) approveSiblings(ctx context.Context, sib []member) []BatchResult {
	var out []BatchResult
	for _, m := range sib {
		br := BatchResult{ID: m.req.ID, Folder: m.fs.key, Agent: m.fs.tag.Agent}
		rv := m.fs.src.Review(m.req)
		if why := rv.Refused + rv.Stale; why != "" {
			br.Error = "left pending: " + why
			out = append(out, br)
			continue
		}
		res, err := m.fs.ap.Approve(ctx, m.req.ID, approver.ApproveOptions{ShownHash: m.req.Hash})
		br.Result = viewResult(res)
		if err != nil {
			br.Error = err.Error()
		}
		out = append(out, br)
	}
	return out
}

// rememberAll stores the rules of an "always, for all agents" approval
// made in fs in every other folder of the inbox, then lets them settle
// what is pending there.
func (s *Server) rememberAll(fs *folderState, req *queue.Request, rules []policy.Remembered) error {
	var targets []inbox.Target
	var others []*folderState
	for _, o := range s.list() {
		if o != fs && o.tag != nil {
			targets = append(targets, inbox.Target{Folder: o.f, Audit: o.audit})
			others = append(others, o)
		}
	}
	err := inbox.RememberAll(targets, s.cfg.State, inbox.Shared{Rules: rules, From: *fs.tag, RequestID: req.ID,
		Hash: req.Hash, Actor: "approver:" + approver.SurfaceServe, User: fs.ap.Identity().User})
	for _, o := range others {
		p, _ := o.track.snapshot()
		o.autoDecide(p)
	}
	return err
}
