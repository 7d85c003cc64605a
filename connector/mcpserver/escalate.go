package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// escalate submits the command as a request (joining an identical one
// this client asked already) and waits for the human.
func (s *Server) escalate(ctx context.Context, core *hook.Core, call *hook.Call, d policy.Decision,
	wait time.Duration, token json.RawMessage) (*ToolResult, error) {
	q, err := core.Queue()
	if err != nil {
		return internalError(fmt.Errorf("opening the escalation queue: %w", err)), nil
	}
	req := &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: call.Script},
		Cwd: call.Cwd, Source: call.Source, Agent: call.Agent, Session: call.Session,
		Justification: call.Justification, PolicyReasons: d.Reasons}
	id, joined, err := q.Submit(ctx, req)
	if err != nil {
		return internalError(fmt.Errorf("submitting the request: %w", err)), nil
	}
	req.ID = id
	s.log.Info("escalated", "id", id, "joined", joined)
	if err := s.record(ctx, core, call, "mcp.escalate", d, req); err != nil {
		return internalError(err), nil
	}
	return s.await(ctx, core, q, id, wait, token, d.Reasons)
}

// await waits up to wait for request id, notifying progress when the
// client asked for it, and renders what it found. A client that goes
// away ends the wait; the request stays pending (answerable later).
func (s *Server) await(ctx context.Context, core *hook.Core, q hook.Queue, id string, wait time.Duration,
	token json.RawMessage, reasons []string) (*ToolResult, error) {
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	stop := s.progress(wctx, token, id, wait)
	res, err := q.Wait(wctx, id)
	stop()
	switch {
	case err == nil:
		return finishedResult(core.Folder.ResultLog, res), nil
	case wctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)):
		return pendingResult(id, time.Since(start), reasons), nil
	}
	return internalError(fmt.Errorf("waiting for request %s: %w", id, err)), nil
}

// progress sends notifications/progress for token every ProgressEvery
// until ctx ends or stop is called: progress is the seconds waited,
// total the seconds the call will wait.
func (s *Server) progress(ctx context.Context, token json.RawMessage, id string, wait time.Duration) (stop func()) {
	if len(token) == 0 || string(token) == "null" {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		t := time.NewTicker(s.opts.ProgressEvery)
		defer t.Stop()
		for n := 0; ; n++ {
			s.notifyProgress(ctx, token, id, time.Since(start), wait, n)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

func (s *Server) notifyProgress(ctx context.Context, token json.RawMessage, id string, waited, wait time.Duration, n int) {
	msg := fmt.Sprintf("waiting for a human to decide request %s (%s of %s)", id,
		waited.Round(time.Second), wait.Round(time.Second))
	notifier(ctx)(noteProgress, map[string]any{
		"progressToken": token,
		"progress":      waited.Seconds() + float64(n)*1e-6, // strictly increasing
		"total":         wait.Seconds(),
		"message":       msg,
	})
}
