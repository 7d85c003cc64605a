package approver

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Follow waits for request id's result while copying the command's output
// to stdout and stderr as the broker writes it, and returns the result.
// With a stream index the two streams stay apart; a log without one is
// copied to stdout whole; a result without a log (writes, reads of other
// approvers, network) has its captured output printed. Cancelling ctx ends
// the wait the way queue.Wait does (a still-pending request is withdrawn).
func Follow(ctx context.Context, q *queue.Queue, id string, stdout, stderr io.Writer, logger *slog.Logger) (*queue.Result, error) {
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	changed := Notify(fctx, q.Folder().Results(), DefaultPoll, logger)
	type waited struct {
		res *queue.Result
		err error
	}
	done := make(chan waited, 1)
	go func() {
		res, err := q.Wait(ctx, id)
		done <- waited{res, err}
	}()
	fl := &follower{logPath: q.Folder().ResultLog(id), idxPath: StreamIndexPath(q.Folder(), id), out: stdout, errOut: stderr}
	for {
		fl.drain()
		select {
		case <-changed:
		case w := <-done:
			if w.err != nil {
				return nil, w.err
			}
			fl.finish(w.res)
			return w.res, nil
		}
	}
}

// follower copies a growing log, split by its stream index.
type follower struct {
	logPath, idxPath string
	out, errOut      io.Writer

	log, idx *os.File
	idxBuf   []byte // an incomplete index line
	owed     int64  // bytes of the current entry not yet in the log
	owedErr  bool   // the current entry is stderr
	progress bool   // the last drain copied something
}

// drain copies the log bytes the index accounts for so far.
func (f *follower) drain() {
	f.progress = false
	if f.log == nil {
		f.log, _ = queue.OpenRegular(f.logPath)
	}
	if f.idx == nil {
		f.idx, _ = queue.OpenRegular(f.idxPath)
	}
	if f.log == nil || f.idx == nil {
		return
	}
	f.copyOwed()
	chunk := make([]byte, 32<<10)
	for f.owed == 0 {
		n, _ := f.idx.Read(chunk)
		if n == 0 {
			return
		}
		f.idxBuf = append(f.idxBuf, chunk[:n]...)
		f.entries()
	}
}

// entries copies the complete index lines buffered.
func (f *follower) entries() {
	for f.owed == 0 {
		i := bytes.IndexByte(f.idxBuf, '\n')
		if i < 0 {
			return
		}
		isErr, n, ok := ParseStreamIndexLine(f.idxBuf[:i])
		f.idxBuf = f.idxBuf[i+1:]
		if !ok {
			continue
		}
		f.owed, f.owedErr = n, isErr
		f.copyOwed()
	}
}

func (f *follower) copyOwed() {
	if f.owed == 0 {
		return
	}
	w := f.out
	if f.owedErr {
		w = f.errOut
	}
	m, _ := io.Copy(w, io.LimitReader(f.log, f.owed))
	f.owed -= m
	f.progress = f.progress || m > 0
}

// finish copies the rest. A log without an index is copied to stdout
// whole; without a log, the result's captured output is printed.
func (f *follower) finish(res *queue.Result) {
	f.drain()
	switch {
	case f.log != nil && f.idx != nil:
		for i := 0; i < 64 && f.progress; i++ {
			f.drain()
		}
	case f.log != nil:
		io.Copy(f.out, f.log)
	case res != nil:
		io.WriteString(f.out, res.Stdout)
		io.WriteString(f.errOut, res.Stderr)
	}
	for _, c := range []*os.File{f.log, f.idx} {
		if c != nil {
			c.Close()
		}
	}
}
