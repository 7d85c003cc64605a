package watch

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// watchLogName is the file in the per-user state dir that holds what
// `sandbox watch` logs.
const watchLogName = "watch.log"

// watchLog is the logger of `sandbox watch`: a log record written to the
// terminal (time=… level=WARN …) would land in the middle of a request
// or of a line being typed. Records go whole to watch.log in the per-user
// state, and the screen gets one line in words naming that file.
type watchLog struct {
	screen *termWriter
	file   slog.Handler // nil when the log file cannot be opened
	path   string
	attrs  []slog.Attr
}

// newWatchLogger opens the log file (closed by the returned function) and
// returns the logger. Without a per-user state dir the screen line is all.
func newWatchLogger(screen *termWriter) (*slog.Logger, func()) {
	h := &watchLog{screen: screen}
	done := func() {}
	if dir, err := userstate.DefaultDir(); err == nil && os.MkdirAll(dir, 0o700) == nil {
		path := filepath.Join(dir, watchLogName)
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err == nil {
			h.file, h.path, done = slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo}), path, func() { f.Close() }
		}
	}
	return slog.New(h), done
}

func (h *watchLog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *watchLog) Handle(ctx context.Context, r slog.Record) error {
	if h.file != nil {
		h.file.Handle(ctx, r)
	}
	if r.Level < slog.LevelWarn {
		return nil
	}
	h.screen.printf("\n! %s\n", h.line(r))
	return nil
}

// line is a record in words: the message, then its values (the error
// first), escaped, then where the details are.
func (h *watchLog) line(r slog.Record) string {
	var vals []string
	add := func(a slog.Attr) bool {
		v := a.Value.Resolve().String()
		if a.Key == "err" || a.Key == "error" {
			vals = append([]string{v}, vals...)
		} else {
			vals = append(vals, a.Key+" "+v)
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	msg := r.Message
	if len(vals) > 0 {
		msg += ": " + strings.Join(vals, ", ")
	}
	msg = display.Truncate(display.EscapeLine(msg), 200)
	if h.path != "" {
		msg += fmt.Sprintf("  (details in %s)", h.path)
	}
	return msg
}

func (h *watchLog) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	if h.file != nil {
		c.file = h.file.WithAttrs(as)
	}
	return &c
}

func (h *watchLog) WithGroup(name string) slog.Handler {
	c := *h
	if h.file != nil {
		c.file = h.file.WithGroup(name)
	}
	return &c
}
