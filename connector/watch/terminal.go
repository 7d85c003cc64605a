package watch

import (
	"io"
	"log/slog"
	"os"
	"strings"
	"time"
)

// terminal is the human's side of a watch session, local or remote: the
// screen, the input (single keys on a terminal in raw mode, whole lines
// otherwise), and what the prompts need of them.
type terminal struct {
	out     *termWriter
	in      <-chan inputEvent
	plain   bool
	fd      int       // the terminal in raw mode, or -1
	shownAt time.Time // keys typed before this are type-ahead
	redraw  func()    // reprints the current prompt after a notice
}

// startInput reads single keys when in is a terminal (and not plain),
// whole lines otherwise. The returned function restores the terminal.
func (t *terminal) startInput(in io.Reader, logger *slog.Logger) (restore func()) {
	f, ok := in.(*os.File)
	if !t.plain && ok && IsTerminal(int(f.Fd())) {
		if r, err := rawMode(int(f.Fd())); err == nil {
			t.fd = int(f.Fd())
			t.in = startInput(in, true)
			return r
		} else {
			logger.Warn("single-key input unavailable; type whole lines", "err", err)
		}
	}
	t.plain = true
	t.in = startInput(in, false)
	return func() {}
}

func (t *terminal) setRedraw(f func()) { t.redraw = f }

// command reads a decision out of an input event: the key, or in plain
// mode the first character of the line and the rest as its argument.
func (t *terminal) command(ev inputEvent) (key rune, arg string) {
	if !ev.isLine {
		return ev.key, ""
	}
	line := strings.TrimSpace(ev.line)
	if line == "" {
		return 0, ""
	}
	return rune(line[0]), strings.TrimSpace(line[1:])
}

// pageSize is the room one page of a request has: the terminal's height
// less the prompt and the marker, everything in plain mode (a script
// reads it all).
func (t *terminal) pageSize() page {
	if t.plain || t.fd < 0 {
		return page{}
	}
	rows, cols := termSize(t.fd)
	if rows <= 0 {
		return page{rows: defaultPage}
	}
	return page{rows: max(rows-4, 10), cols: cols}
}

// typeAheadFrom drops the keys typed before now: they were typed before
// what is on the screen now was shown.
func (t *terminal) typeAheadFrom() {
	if t.fd >= 0 {
		flushInput(t.fd)
	}
	t.shownAt = time.Now()
}

// eol ends a prompt: a newline in plain mode (scripts read lines), a
// space on a terminal (the key is echoed after it).
func (t *terminal) eol() string {
	if t.plain {
		return "\n"
	}
	return ""
}
