package launcher

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/checkpoint"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook/live"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// The supervisor's side of run mode's checkpoints (the protocol is in
// connector/hook/live/ckptbus.go): a jailed hook asks, before it answers
// allow, for a checkpoint of what its call deletes or overwrites. The
// request is hostile input, so the supervisor recomputes what to keep
// from the script, keeps only files of the project (checkpoint.Store
// drops every other path and walks through os.Root, never out through a
// link), and answers where the jail cannot write. It is bounded: requests
// are taken one at a time, at most ckptBurst at once and ckptRate a
// second after that (an agent's tool calls come a few at a time; a
// checkpoint of an unchanged 10,000-file tree costs about 50 ms), at most
// ckptScanMax looked at per scan and ckptMaxAnswers answers kept; beyond
// that a request is refused, and its hook escalates the call.
const (
	ckptBurst      = 32
	ckptRate       = 2 // per second, after the burst
	ckptScanMax    = 256
	ckptMaxAnswers = 1024
	// ckptAnswerTTL is how long an answer stays for its hook (which
	// waits live.CkptWait at most); ckptStale how long another run's
	// request is left for its own supervisor.
	ckptAnswerTTL = time.Minute
	ckptStale     = time.Minute
	ckptSweep     = 10 * time.Second
)

// ckptServer takes the checkpoints of one run's jailed hooks.
type ckptServer struct {
	f       folder.Folder
	st      *userstate.State
	session string
	log     *slog.Logger
	now     func() time.Time
	take    func(checkpoint.Request) (*checkpoint.Checkpoint, error)

	store    *checkpoint.Store // opened on the first request
	tokens   float64
	last     time.Time
	answered map[string]time.Time // id -> when its answer was written
}

func newCkptServer(f folder.Folder, st *userstate.State, session string, log *slog.Logger) *ckptServer {
	s := &ckptServer{f: f, st: st, session: session, log: log, now: time.Now,
		tokens: ckptBurst, answered: map[string]time.Time{}}
	s.take = s.takeStore
	return s
}

// serve answers requests until ctx ends, then removes its answers.
func (s *ckptServer) serve(ctx context.Context) {
	if err := s.prepare(); err != nil {
		s.log.Warn("run-mode checkpoints off: jailed hooks escalate what they would have kept", "err", err)
		return
	}
	defer s.clear()
	changed := approver.Notify(ctx, s.f.Tmp(), approver.DefaultPoll, s.log)
	tick := time.NewTicker(ckptSweep)
	defer tick.Stop()
	for {
		s.scan()
		select {
		case <-ctx.Done():
			for range changed { // the notifier releases its watch first
			}
			return
		case <-tick.C:
		case _, ok := <-changed:
			if !ok {
				return
			}
		}
	}
}

// prepare makes the answers' directory: a real directory, not a link.
func (s *ckptServer) prepare() error {
	dir := live.CkptAnswers(s.f)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (%s)", dir, fi.Mode().Type())
	}
	return nil
}

// scan handles the checkpoint requests in tmp/ and drops old answers.
func (s *ckptServer) scan() {
	d, err := os.Open(s.f.Tmp())
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(4096)
	d.Close()
	n := 0
	for _, name := range names {
		id, ok := strings.CutSuffix(name, live.CkptExt)
		if !ok {
			continue
		}
		path := filepath.Join(s.f.Tmp(), name)
		if !queue.ValidID(id) {
			os.Remove(path)
			continue
		}
		if n++; n > ckptScanMax {
			s.refuse(id, path, "too many checkpoint requests at once")
			continue
		}
		s.handle(id, path)
	}
	s.expire(false)
}

// handle answers one request and removes it.
func (s *ckptServer) handle(id, path string) {
	r, sum, err := live.ReadCkptRequest(path, id)
	if err == nil && r.RunSession != s.session {
		if fi, err := os.Lstat(path); err == nil && s.now().Sub(fi.ModTime()) > ckptStale {
			os.Remove(path) // its run is gone
		}
		return // another run's
	}
	os.Remove(path)
	a := live.CkptAnswer{ID: id, Request: hex.EncodeToString(sum[:])}
	switch {
	case err != nil:
		a.Error = err.Error()
	case !s.allow():
		a.Error = fmt.Sprintf("too many checkpoint requests (at most %d at once, then %d a second)", ckptBurst, ckptRate)
	default:
		ck, err := s.take(s.request(r))
		if err != nil {
			a.Error = err.Error()
		} else if ck != nil {
			a.Checkpoint, a.Files = ck.ID, ck.Files
			s.log.Info("checkpoint for a jailed hook", "id", ck.ID, "files", ck.Files, "not_kept", ck.NotKeptCount)
		}
	}
	s.answer(a)
}

// refuse answers a request it will not read.
func (s *ckptServer) refuse(id, path, why string) {
	os.Remove(path)
	s.answer(live.CkptAnswer{ID: id, Error: why})
}

// request turns a jailed hook's request into a checkpoint request: a
// script's paths are recomputed here; a write's paths are taken as
// named, and the store keeps only those inside the project.
func (s *ckptServer) request(r *live.CkptRequest) checkpoint.Request {
	req := checkpoint.Request{Session: r.Session, ToolUseID: r.ToolUseID, Tool: r.Tool}
	if r.Script != "" {
		req.Paths, req.WholeTree = checkpoint.ForShell(r.Script, r.Cwd)
		req.Command = r.Script
		return req
	}
	req.Paths, req.Command = r.Paths, strings.Join(r.Paths, " ")
	return req
}

func (s *ckptServer) takeStore(req checkpoint.Request) (*checkpoint.Checkpoint, error) {
	if len(req.Paths) == 0 && !req.WholeTree {
		return nil, nil
	}
	if s.store == nil {
		st, err := live.StoreFor(s.st, s.f.Root, s.log)
		if err != nil {
			return nil, err
		}
		s.store = st
	}
	return s.store.Take(req)
}

// allow takes a token of the rate limit.
func (s *ckptServer) allow() bool {
	now := s.now()
	if !s.last.IsZero() {
		s.tokens = min(ckptBurst, s.tokens+now.Sub(s.last).Seconds()*ckptRate)
	}
	s.last = now
	if s.tokens < 1 {
		return false
	}
	s.tokens--
	return true
}

// answer writes a's file once: staged in the private staging directory,
// then linked into place, so that the jail never sees it half written
// and no answer is ever replaced.
func (s *ckptServer) answer(a live.CkptAnswer) {
	if _, done := s.answered[a.ID]; done || len(s.answered) >= ckptMaxAnswers {
		return // its hook times out and escalates
	}
	data, err := json.Marshal(a)
	if err == nil {
		err = s.link(a.ID, data)
	}
	if err != nil {
		s.log.Warn("checkpoint answer", "id", a.ID, "err", err)
		return
	}
	s.answered[a.ID] = s.now()
}

func (s *ckptServer) link(id string, data []byte) error {
	tmp := filepath.Join(s.f.Staging(), "ckpt-"+id+"-"+queue.NewID())
	fh, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	_, err = fh.Write(data)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Link(tmp, filepath.Join(live.CkptAnswers(s.f), id+".json"))
}

// expire removes the answers older than ckptAnswerTTL (all with all).
func (s *ckptServer) expire(all bool) {
	now := s.now()
	for id, t := range s.answered {
		if all || now.Sub(t) > ckptAnswerTTL {
			os.Remove(filepath.Join(live.CkptAnswers(s.f), id+".json"))
			delete(s.answered, id)
		}
	}
}

func (s *ckptServer) clear() { s.expire(true) }
