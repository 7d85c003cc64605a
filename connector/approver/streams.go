package approver

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/folder"
)

// The stream index, results/ID.streams, lets a follower of results/ID.log
// (`sandbox request`, a shim) give stdout and stderr back separately while
// the command runs. The log is the bytes of both streams in the order they
// arrived; the index has one line per chunk, "o N" or "e N", written right
// after the broker wrote that chunk of N bytes to the log. A follower
// copies log bytes only as far as the index accounts for them.
const streamIndexExt = ".streams"

// StreamIndexPath is the stream index of request id.
func StreamIndexPath(f folder.Folder, id string) string {
	return filepath.Join(f.Results(), id+streamIndexExt)
}

// ParseStreamIndexLine reads one index line without its newline: "o N"
// (stdout) or "e N" (stderr). ok is false for anything else.
func ParseStreamIndexLine(line []byte) (stderr bool, n int64, ok bool) {
	if len(line) < 3 || line[1] != ' ' {
		return false, 0, false
	}
	n, err := strconv.ParseInt(string(line[2:]), 10, 64)
	if err != nil || n < 0 {
		return false, 0, false
	}
	return line[0] == 'e', n, true
}

type streamIndex struct {
	f   *os.File // nil when the index could not be created
	log *slog.Logger
}

func createStreamIndex(f folder.Folder, id string, log *slog.Logger) *streamIndex {
	file, err := os.OpenFile(StreamIndexPath(f, id), os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, broker.LogMode)
	if err != nil {
		log.Warn("no stream index; followers will see the output merged", "id", id, "err", err)
		return &streamIndex{log: log}
	}
	return &streamIndex{f: file, log: log}
}

// note records a chunk of n bytes of stream; it runs in the broker's
// output callback, after the chunk is in the log.
func (s *streamIndex) note(stream string, n int) {
	if s.f == nil {
		return
	}
	tag := "o"
	if stream == broker.Stderr {
		tag = "e"
	}
	if _, err := fmt.Fprintf(s.f, "%s %d\n", tag, n); err != nil {
		s.log.Warn("stream index write failed", "err", err)
		s.f.Close()
		s.f = nil
	}
}

func (s *streamIndex) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}
