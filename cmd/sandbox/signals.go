package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
)

// notifyContext is signal.NotifyContext with the registration done in
// the background. os/signal's first Notify starts a thread and makes a
// round trip with it for every signal (0.15-0.2 ms for two signals at a
// process start here, 0.3-0.9 ms for nine), and so does Stop; a hook or
// `sandbox check` lasts a few milliseconds, so that work overlaps the
// command's own instead of preceding and following it. A signal that
// arrives before the registration is done has its default action, as one
// during the runtime's start-up always had. stop cancels the context and
// unregisters in the background (the process is about to exit).
func notifyContext(parent context.Context, sigs ...os.Signal) (context.Context, context.CancelFunc) {
	ctx, stop, _ := notifyContextAsync(parent, sigs...)
	return ctx, stop
}

// notifyContextAsync is notifyContext; registered is closed once the
// signals are caught.
func notifyContextAsync(parent context.Context, sigs ...os.Signal) (_ context.Context, stop context.CancelFunc, registered <-chan struct{}) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() {
		signal.Notify(ch, sigs...)
		close(done)
		select {
		case <-ch:
			cancel()
		case <-ctx.Done():
		}
	}()
	stop = func() {
		cancel()
		go func() {
			<-done
			signal.Stop(ch)
		}()
	}
	return ctx, stop, done
}

// ignoreUntilArmed returns a context that sigs cancel once arm has been
// called; until then they are ignored. `sandbox hook` uses it: an allowed
// call answers in a millisecond or two and never needs to be cancelled,
// so it skips os/signal's thread and round trips, and a signal during its
// classification can neither kill it (the agent would take the missing
// answer as leave to run the call) nor cut it short. arm registers the
// signals before the hook waits for a human; it is idempotent.
func ignoreUntilArmed(parent context.Context, sigs ...os.Signal) (ctx context.Context, arm func(), stop context.CancelFunc) {
	signal.Ignore(sigs...)
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	var once sync.Once
	arm = func() {
		once.Do(func() {
			signal.Notify(ch, sigs...)
			go func() {
				select {
				case <-ch:
					cancel()
				case <-ctx.Done():
				}
			}()
		})
	}
	return ctx, arm, cancel
}
