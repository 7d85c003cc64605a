package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Listing limits for finished requests.
const (
	defaultDoneLimit = 100
	maxDoneLimit     = 1000
)

// handleList is GET /api/requests?state=pending|claimed|done|all
// [&folder=KEY][&limit=N]: {"requests": [...]}. Pending requests come
// oldest first, with everything the approver must see; claimed ones
// next; finished ones newest first, at most limit of them.
func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "pending"
	}
	if !slices.Contains([]string{"pending", "claimed", "done", "all"}, state) {
		writeError(w, http.StatusBadRequest, "bad_request", "state must be pending, claimed, done or all")
		return
	}
	limit, err := parseLimit(q.Get("limit"), defaultDoneLimit, maxDoneLimit)
	if err != nil {
		fail(w, err)
		return
	}
	folders, err := s.selected(q.Get("folder"))
	if err != nil {
		fail(w, err)
		return
	}
	var items []json.RawMessage
	if state == "pending" || state == "all" {
		items = append(items, pendingJSON(folders)...)
	}
	if state == "claimed" || state == "all" {
		items = append(items, claimedJSON(folders)...)
	}
	if state == "done" || state == "all" {
		items = append(items, doneJSON(folders, limit)...)
	}
	writeList(w, items)
}

// selected is the folder named by key, or every folder.
func (s *Server) selected(key string) ([]*folderState, error) {
	if key == "" {
		return s.list(), nil
	}
	fs, err := s.folder(key)
	if err != nil {
		return nil, err
	}
	return []*folderState{fs}, nil
}

func pendingJSON(folders []*folderState) []json.RawMessage {
	var all []*entry
	for _, fs := range folders {
		fs.refresh()
		p, _ := fs.track.snapshot()
		all = append(all, p...)
	}
	sortEntries(all)
	out := make([]json.RawMessage, len(all))
	for i, e := range all {
		out[i] = e.js
	}
	return out
}

func claimedJSON(folders []*folderState) []json.RawMessage {
	var out []json.RawMessage
	for _, fs := range folders {
		_, ids := fs.track.snapshot()
		for _, id := range ids {
			req, st, err := fs.q.Load(id)
			if err != nil || req == nil {
				continue
			}
			if js, err := json.Marshal(fs.view(req, st)); err == nil {
				out = append(out, js)
			}
		}
	}
	return out
}

func doneJSON(folders []*folderState, limit int) []json.RawMessage {
	type item struct {
		id string
		fs *folderState
	}
	var ids []item
	for _, fs := range folders {
		for _, id := range fs.track.doneIDs(limit) {
			ids = append(ids, item{id, fs})
		}
	}
	slices.SortFunc(ids, func(a, b item) int { return strings.Compare(b.id, a.id) })
	var out []json.RawMessage
	for _, it := range ids[:min(limit, len(ids))] {
		if js, ok := it.fs.track.doneView(it.id); ok {
			out = append(out, js)
		}
	}
	return out
}

func writeList(w http.ResponseWriter, items []json.RawMessage) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	bw := bufio.NewWriterSize(w, 32<<10)
	bw.WriteString(`{"requests":[`)
	for i, js := range items {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.Write(js)
	}
	bw.WriteString("]}\n")
	bw.Flush()
}

func parseLimit(s string, def, max int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%w: limit must be a positive number", errBadBody)
	}
	return min(n, max), nil
}

// handleGet is GET /api/requests/{id}[?folder=KEY]: one request in any
// state, with its result once done.
func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	fs, err := s.locate(r.URL.Query().Get("folder"), id)
	if err != nil {
		fail(w, err)
		return
	}
	v, err := fs.lookup(id)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// lookup describes request id of this folder in whatever state it is.
func (fs *folderState) lookup(id string) (*RequestView, error) {
	req, st, err := fs.q.Load(id)
	if err != nil {
		return nil, err
	}
	if st != queue.StateDone {
		return fs.view(req, st), nil
	}
	res, err := fs.q.Result(id)
	if err != nil {
		return nil, err
	}
	return fs.tagView(viewDone(fs.key, res)), nil
}
