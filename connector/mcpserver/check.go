package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// handleCheck answers check_request: a finished request's result at once,
// a pending one after waiting up to wait_seconds for it.
func (s *Server) handleCheck(ctx context.Context, p *callParams) (*ToolResult, error) {
	a := newArgs(p.Arguments, "id", "wait_seconds")
	id := a.str("id", true, 64)
	wait := a.wait()
	if err := a.err(ToolCheck); err != nil {
		return badArguments(err), nil
	}
	if !queue.ValidID(id) {
		return badArguments(fmt.Errorf("%s: %w: %q is not a request id", ToolCheck, ErrBadArguments, id)), nil
	}
	core, err := s.opts.Open(ctx)
	if err != nil {
		return internalError(err), nil
	}
	defer s.closeCore(core)
	q, err := core.Queue()
	if err != nil {
		return internalError(fmt.Errorf("opening the escalation queue: %w", err)), nil
	}
	rq, ok := q.(resulter)
	if !ok {
		return internalError(errors.New("bug: the queue cannot look up results")), nil
	}
	res, err := rq.Result(id)
	if err == nil {
		return finishedResult(core.Folder.ResultLog, res), nil
	}
	if !errors.Is(err, queue.ErrNotFound) {
		return internalError(err), nil
	}
	r, _, err := rq.Load(id)
	if errors.Is(err, queue.ErrNotFound) {
		return badArguments(fmt.Errorf("%s: %w: there is no request %s in this folder", ToolCheck, ErrBadArguments, id)), nil
	}
	if err != nil {
		return internalError(err), nil
	}
	return s.await(ctx, core, q, id, wait, p.Meta.ProgressToken, r.PolicyReasons)
}

// resulter is what check_request needs of the queue beyond waiting.
type resulter interface {
	Result(id string) (*queue.Result, error)
	Load(id string) (*queue.Request, queue.State, error)
}
