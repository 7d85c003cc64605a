package approver

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// readFile carries out an approved read: the file is opened without
// following any link in its path (a link the agent planted could point
// anywhere), must be a regular file with one link, and is returned as the
// output, capped; the log holds up to DefaultMaxRead bytes of it.
func (a *Approver) readFile(req *queue.Request, onOutput func(string, []byte)) *queue.Result {
	if req.Read == nil {
		return &queue.Result{Decision: queue.Failed, Reason: "bug: read request without a payload"}
	}
	started := time.Now()
	data, cut, err := readNoLinks(req.Read.Path, DefaultMaxRead)
	if err != nil {
		return &queue.Result{Decision: queue.Failed, Reason: "read " + err.Error()}
	}
	if cut {
		data = append(data, fmt.Sprintf("\n[sandbox: file larger than %d bytes; the rest was not read]\n", DefaultMaxRead)...)
	}
	logPath := a.writeReadLog(req.ID, data)
	if onOutput != nil {
		onOutput("stdout", data)
	}
	out, truncated := queue.CapOutput(data, queue.DefaultOutputCap)
	code := 0
	finished := time.Now()
	return &queue.Result{
		Decision: queue.Approved, ExitCode: &code, Stdout: out, StdoutTruncated: truncated || cut,
		Started: started.UTC(), Finished: finished.UTC(),
		DurationMS: finished.Sub(started).Milliseconds(), LogPath: logPath,
	}
}

// writeReadLog stores what was read as the request's log and index, so
// that followers see it like a command's output. Best effort: the result
// carries the capped content anyway.
func (a *Approver) writeReadLog(id string, data []byte) string {
	path := a.f.ResultLog(id)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
	if err != nil {
		a.log.Warn("no log for an approved read", "id", id, "err", err)
		return ""
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		a.log.Warn("log of an approved read incomplete", "id", id, "err", werr)
	}
	idx := createStreamIndex(a.f, id, a.log)
	idx.note("stdout", len(data))
	idx.close()
	return path
}

// readNoLinks reads at most limit bytes of the regular, singly linked
// file at the absolute path, refusing a symbolic link anywhere in it.
// cut reports that the file was longer.
func readNoLinks(path string, limit int64) (data []byte, cut bool, err error) {
	if !filepath.IsAbs(path) || strings.ContainsRune(path, 0) {
		return nil, false, fmt.Errorf("%q: not an absolute path", path)
	}
	f, err := openNoLinks(filepath.Clean(path))
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if n, ok := linkCount(fi); ok && n > 1 {
		return nil, false, fmt.Errorf("%s: has %d hard links: %w", path, n, ErrNotRegular)
	}
	data, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}

// openNoLinksPortable checks every component of path with Lstat, then
// opens it without following a final link and checks that what it opened
// is what it checked.
func openNoLinksPortable(path string) (*os.File, error) {
	for p := path; ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: %s is a symbolic link: %w", path, p, ErrNotRegular)
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	before, _ := os.Lstat(path)
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow|oNonblock, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	after, err := f.Stat()
	if err != nil || before == nil || !os.SameFile(before, after) {
		f.Close()
		return nil, fmt.Errorf("%s: changed while being opened: %w", path, ErrNotRegular)
	}
	return f, nil
}
