package watch

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/sandbox-dev/sandbox/connector/display"
)

// termWriter serialises everything written to the approver's terminal
// (prompts, announcements, live output from the broker's goroutine).
type termWriter struct {
	mu sync.Mutex
	w  io.Writer // guarded by mu
}

func (t *termWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.w.Write(p)
}

func (t *termWriter) printf(format string, args ...any) {
	fmt.Fprintf(t, format, args...)
}

// liveOutput shows a running command's output on the approver's terminal
// line by line, escaped (the command's output is as untrusted as the
// request: it must not move the cursor, rewrite the screen or hide text),
// with a gutter telling stdout from stderr.
type liveOutput struct {
	out      io.Writer
	mu       sync.Mutex
	partial  map[string][]byte // guarded by mu: an unfinished line per stream
	maxLine  int
	lines    int // guarded by mu
	maxLines int
}

// LiveOutput shows a running command's output on the terminal out as
// watch does (escaped lines, a gutter telling stdout from stderr): write
// is an approval's OnOutput callback, flush prints what is left once the
// command has ended.
func LiveOutput(out io.Writer) (write func(stream string, p []byte), flush func()) {
	l := newLiveOutput(out, 0)
	return l.write, l.flush
}

func newLiveOutput(out io.Writer, maxLines int) *liveOutput {
	return &liveOutput{out: out, partial: map[string][]byte{}, maxLine: 4096, maxLines: maxLines}
}

// write is the broker's OnOutput callback.
func (l *liveOutput) write(stream string, p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	buf := append(l.partial[stream], p...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 && len(buf) < l.maxLine {
			break
		}
		if i < 0 {
			i = len(buf) - 1
		}
		l.line(stream, buf[:i+1])
		buf = buf[i+1:]
	}
	l.partial[stream] = append([]byte(nil), buf...)
}

// flush prints unfinished lines; call it when the command has ended.
func (l *liveOutput) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range []string{"stdout", "stderr"} {
		if len(l.partial[s]) > 0 {
			l.line(s, l.partial[s])
			l.partial[s] = nil
		}
	}
	if l.maxLines > 0 && l.lines > l.maxLines {
		fmt.Fprintf(l.out, "   ┆ … %d more lines not shown\n", l.lines-l.maxLines)
	}
}

func (l *liveOutput) line(stream string, b []byte) {
	l.lines++
	if l.maxLines > 0 && l.lines > l.maxLines {
		return
	}
	gutter := "   │ "
	if stream == "stderr" {
		gutter = "   ! "
	}
	text := display.EscapeLine(string(bytes.TrimSuffix(b, []byte("\n"))))
	fmt.Fprintf(l.out, "%s%s\n", gutter, text)
}
