package hook

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// NoApproverGrace is how long an escalated call waits while no approver
// watches the folder before the hook stops and tells the model so: the
// agent then says it to its user instead of hanging for the whole wait
// (10 minutes by default) in silence. Long enough for a human who sees
// the hint in the session brief to start `sandbox watch`.
var NoApproverGrace = 15 * time.Second

// presencePoll is how often the hook looks at the approvers' lock.
var presencePoll = 500 * time.Millisecond

// stopWhenUnwatched returns a context that also ends once no approver
// has been watching c.Folder for NoApproverGrace, and a function that
// reports whether that is why it ended. An unknown presence (no locks on
// this system, or the lock out of sight) never stops the wait.
func (c *Core) stopWhenUnwatched(ctx context.Context) (context.Context, func() bool) {
	ctx, cancel := context.WithCancel(ctx)
	var stopped atomic.Bool
	go func() {
		defer cancel()
		t := time.NewTicker(presencePoll)
		defer t.Stop()
		var since time.Time
		for {
			if c.Folder.ApproverWatching() != folder.PresenceNobody {
				since = time.Time{}
			} else if since.IsZero() {
				since = time.Now()
			} else if time.Since(since) >= NoApproverGrace {
				stopped.Store(true)
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return ctx, stopped.Load
}

// pendingReason is the model's message for a request still pending when
// the hook stops waiting (text), saying when that is because nobody
// watches.
func (c *Core) pendingReason(text string, unwatched bool) string {
	if !unwatched {
		return text
	}
	return text + "\nNobody can decide it now: " + c.Folder.HowToApprove() +
		". Tell the user this, and retry the same call once an approver runs."
}

// approverLine is the session brief's line when nobody watches the folder
// as the session starts, so that the model says so before its first
// privileged call rather than after a wait.
func (c *Core) approverLine() string {
	if c.Folder.ApproverWatching() != folder.PresenceNobody {
		return ""
	}
	return "- Right now " + c.Folder.HowToApprove() + ". Privileged calls will not be decided until one runs: " +
		"tell the user this at the start, before you need one."
}
