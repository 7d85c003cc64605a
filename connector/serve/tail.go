package serve

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Stream names in output events.
const (
	streamOut = "stdout"
	streamErr = "stderr"
)

// drainStep bounds what one drain reads, so that a flood of output does
// not hold a folder's worker.
const drainStep = 1 << 20

// logTail follows results/ID.log as the broker writes it, split into
// stdout and stderr by the stream index (results/ID.streams), and turns
// it into escaped text. A log without an index is shown as stdout.
type logTail struct {
	logPath, idxPath string
	log, idx         *os.File
	merged           bool
	idxBuf           []byte
	owed             int64 // bytes of the current index entry not yet read
	owedErr          bool
	split            [2]lineSplit
	read             int64 // log bytes read so far
}

func newLogTail(f folder.Folder, id string) *logTail {
	return &logTail{logPath: f.ResultLog(id), idxPath: approver.StreamIndexPath(f, id)}
}

// emit receives escaped text of one stream.
type emitFunc func(stream, text string)

// drain passes on what the broker has written so far (at most drainStep
// bytes) and reports whether it read anything.
func (t *logTail) drain(emit emitFunc) bool {
	if !t.open() {
		return false
	}
	before := t.read
	if t.merged {
		for t.read-before < drainStep && t.copy(false, drainStep, emit) > 0 {
		}
		return t.read > before
	}
	for t.read-before < drainStep {
		if t.owed > 0 {
			if t.copy(t.owedErr, t.owed, emit) == 0 {
				break
			}
			continue
		}
		if !t.nextEntry() {
			break
		}
	}
	return t.read > before
}

// open opens the log and its index once they exist. A log whose index
// is missing (it could not be created) is read merged.
func (t *logTail) open() bool {
	if t.log == nil {
		f, err := queue.OpenRegular(t.logPath)
		if err != nil {
			return false
		}
		t.log = f
	}
	if t.idx == nil && !t.merged {
		f, err := queue.OpenRegular(t.idxPath)
		switch {
		case err == nil:
			t.idx = f
		case errors.Is(err, fs.ErrNotExist):
			t.merged = true // the approver creates the index before the log
		default:
			return false
		}
	}
	return true
}

// nextEntry reads the next complete index line into owed.
func (t *logTail) nextEntry() bool {
	for {
		if i := bytes.IndexByte(t.idxBuf, '\n'); i >= 0 {
			isErr, n, ok := approver.ParseStreamIndexLine(t.idxBuf[:i])
			t.idxBuf = t.idxBuf[i+1:]
			if !ok {
				continue
			}
			t.owed, t.owedErr = n, isErr
			return true
		}
		var chunk [4096]byte
		n, _ := t.idx.Read(chunk[:])
		if n == 0 || len(t.idxBuf) > 1<<16 {
			return false
		}
		t.idxBuf = append(t.idxBuf, chunk[:n]...)
	}
}

// copy reads up to max log bytes of one stream and passes them on.
func (t *logTail) copy(isErr bool, max int64, emit emitFunc) int64 {
	buf := make([]byte, min(max, 64<<10))
	n, _ := io.ReadFull(t.log, buf)
	if n == 0 {
		return 0
	}
	t.read += int64(n)
	if !t.merged {
		t.owed -= int64(n)
	}
	s, name := 0, streamOut
	if isErr {
		s, name = 1, streamErr
	}
	if text := t.split[s].push(buf[:n]); text != "" {
		emit(name, text)
	}
	return int64(n)
}

// finish passes on the rest once the request is done: what the log
// still holds, or the result's captured output when there is no log,
// and the unfinished last lines.
func (t *logTail) finish(res *queue.Result, emit emitFunc) {
	for i := 0; i < 64 && t.drain(emit); i++ {
	}
	if t.log == nil && res != nil {
		emitText(emit, streamOut, escapeBlock(res.Stdout))
		emitText(emit, streamErr, escapeBlock(res.Stderr))
	}
	emitText(emit, streamOut, t.split[0].flush())
	emitText(emit, streamErr, t.split[1].flush())
	t.close()
}

func emitText(emit emitFunc, stream, text string) {
	if text != "" {
		emit(stream, text)
	}
}

func (t *logTail) close() {
	for _, f := range []*os.File{t.log, t.idx} {
		if f != nil {
			f.Close()
		}
	}
	t.log, t.idx = nil, nil
}

// maxPartial is the longest unfinished line held back.
const maxPartial = 4096

// lineSplit turns a stream's bytes into escaped text, complete lines at
// a time (so that a multi-byte character or an escape sequence split
// across chunks is escaped whole). A line longer than maxPartial is
// passed on in pieces.
type lineSplit struct{ buf []byte }

func (l *lineSplit) push(p []byte) string {
	l.buf = append(l.buf, p...)
	cut := bytes.LastIndexByte(l.buf, '\n') + 1
	if cut == 0 && len(l.buf) >= maxPartial {
		cut = runeCut(l.buf)
	}
	if cut == 0 {
		return ""
	}
	text := escapeOutput(l.buf[:cut])
	l.buf = append(l.buf[:0], l.buf[cut:]...)
	return text
}

func (l *lineSplit) flush() string {
	text := escapeOutput(l.buf)
	l.buf = nil
	return text
}

// runeCut is len(b), backed off to before an incomplete last character.
func runeCut(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// escapeOutput escapes each line of b as `sandbox watch` does for live
// output, keeping the newlines.
func escapeOutput(b []byte) string {
	return escapeBlock(string(b))
}
