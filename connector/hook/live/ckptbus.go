package live

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sandbox-dev/sandbox/connector/checkpoint"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Inside `sandbox run`'s jail the hook cannot reach the per-user state,
// where checkpoints are kept (nor should it: the jailed agent could then
// rewrite them). So it asks the run's supervisor, outside the jail, to
// take the checkpoint before it answers allow, over the folder bus:
//
//   - the hook writes tmp/ID.ckpt (staged as tmp/ID.ckpt-part, then
//     renamed), one of the two directories the jail may write;
//   - the supervisor reads it once (a regular file, not a link, at most
//     MaxCkptRequest bytes), recomputes what to keep from the script
//     (checkpoint.ForShell) or takes the write paths, keeps only what is
//     inside the project (checkpoint.Store ignores the rest and never
//     follows a link out), and answers in escalations/kept/ID.json, a
//     directory the jail can read but not write, staged in the private
//     staging/ directory and linked into place (never replaced);
//   - the answer carries the SHA-256 of the request bytes the supervisor
//     read, so that a request the jail swapped before it was read is an
//     error for the hook, not a silent "nothing to keep".
//
// The jail can therefore neither forge an answer nor make the supervisor
// do anything but checkpoint project files into the per-user store.

// CkptExt names a checkpoint request in tmp/; CkptPartExt one being written.
const (
	CkptExt     = ".ckpt"
	CkptPartExt = ".ckpt-part"
)

// MaxCkptRequest bounds a request file (the script is most of it).
const MaxCkptRequest = 1 << 20

// CkptWait bounds the hook's wait for the supervisor's answer: a first
// checkpoint of a large work tree takes seconds, and a hook that stops
// waiting escalates the call (or refuses the write) rather than let it
// run unkept.
const CkptWait = 20 * time.Second

// CkptAnswers is the directory of the supervisor's answers.
func CkptAnswers(f folder.Folder) string { return filepath.Join(f.Escalations(), "kept") }

// CkptRequest is what the jailed hook sends: only what the supervisor
// needs to recompute the checkpoint itself.
type CkptRequest struct {
	ID string `json:"id"`
	// RunSession is the run's session (shims.EnvSession): the supervisor
	// of another run on the same folder leaves the request alone.
	RunSession string `json:"run_session"`
	// Script and Cwd for a shell call; Paths for a write.
	Script    string   `json:"script,omitempty"`
	Cwd       string   `json:"cwd,omitempty"`
	Paths     []string `json:"paths,omitempty"`
	Session   string   `json:"session,omitempty"`
	ToolUseID string   `json:"tool_use_id,omitempty"`
	Tool      string   `json:"tool,omitempty"`
}

// CkptAnswer is the supervisor's answer.
type CkptAnswer struct {
	ID string `json:"id"`
	// Request is the SHA-256 (hex) of the request bytes it read.
	Request    string `json:"request"`
	Checkpoint string `json:"checkpoint,omitempty"` // empty: nothing in the project was named
	Files      int    `json:"files,omitempty"`
	Error      string `json:"error,omitempty"`
}

// busCheckpointer is the jailed hook's Checkpointer: it asks the
// supervisor of the run (RunSession) and waits for its answer.
type busCheckpointer struct {
	f          folder.Folder
	runSession string
	wait       time.Duration
}

func (b *busCheckpointer) Take(req checkpoint.Request) (*checkpoint.Checkpoint, error) {
	r := CkptRequest{ID: queue.NewID(), RunSession: b.runSession, Session: req.Session,
		ToolUseID: req.ToolUseID, Tool: req.Tool}
	switch {
	case req.Cwd != "": // a shell call: the supervisor recomputes its paths
		r.Script, r.Cwd = req.Command, req.Cwd
	case req.WholeTree: // a shell call without a cwd: its paths are not known here either
		r.Script, r.Cwd = req.Command, b.f.Root
	default:
		r.Paths = req.Paths
	}
	ctx, cancel := context.WithTimeout(context.Background(), cmpWait(b.wait))
	defer cancel()
	a, err := AskCheckpoint(ctx, b.f, r)
	if err != nil {
		return nil, err
	}
	if a.Checkpoint == "" {
		return nil, nil
	}
	return &checkpoint.Checkpoint{ID: a.Checkpoint, Files: a.Files, Session: req.Session, ToolUseID: req.ToolUseID}, nil
}

func cmpWait(d time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return CkptWait
}

// AskCheckpoint sends r to the supervisor and waits for its answer until
// ctx ends. An answer that reports an error, or that answers other bytes
// than the ones sent, is an error.
func AskCheckpoint(ctx context.Context, f folder.Folder, r CkptRequest) (*CkptAnswer, error) {
	if !queue.ValidID(r.ID) {
		return nil, fmt.Errorf("checkpoint request: bad id %q", r.ID)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	if err := sendCkpt(f, r.ID, data); err != nil {
		return nil, fmt.Errorf("ask the supervisor for a checkpoint: %w", err)
	}
	sum := sha256.Sum256(data)
	a, err := awaitCkpt(ctx, f, r.ID)
	if err != nil {
		os.Remove(filepath.Join(f.Tmp(), r.ID+CkptExt)) // nobody will take it now
		return nil, err
	}
	if a.ID != r.ID || a.Request != hex.EncodeToString(sum[:]) {
		return nil, errors.New("the supervisor answered a checkpoint request other than the one sent (was it rewritten in escalations/tmp?)")
	}
	if a.Error != "" {
		return nil, fmt.Errorf("the supervisor could not keep a checkpoint: %s", a.Error)
	}
	return a, nil
}

// sendCkpt stages the request under a name the supervisor ignores, then
// renames it in, so that it never reads half a request.
func sendCkpt(f folder.Folder, id string, data []byte) error {
	part := filepath.Join(f.Tmp(), id+CkptPartExt)
	fh, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = fh.Write(data)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(part, filepath.Join(f.Tmp(), id+CkptExt))
	}
	if err != nil {
		os.Remove(part)
	}
	return err
}

// awaitCkpt polls for the answer: it usually comes within milliseconds,
// and polling links nothing more into the hook than it has.
func awaitCkpt(ctx context.Context, f folder.Folder, id string) (*CkptAnswer, error) {
	path := filepath.Join(CkptAnswers(f), id+".json")
	delay := 2 * time.Millisecond
	for {
		a, err := ReadCkptAnswer(path)
		if err == nil {
			return a, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the supervisor did not answer the checkpoint request in time: %w", ctx.Err())
		case <-time.After(delay):
		}
		delay = min(2*delay, 50*time.Millisecond)
	}
}

// ReadCkptAnswer reads one answer file (a regular file, not a link).
func ReadCkptAnswer(path string) (*CkptAnswer, error) {
	data, err := readRegular(path, 64<<10)
	if err != nil {
		return nil, err
	}
	var a CkptAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf("checkpoint answer %s: %w", path, err)
	}
	return &a, nil
}

// ReadCkptRequest reads and validates one request file for the
// supervisor: a regular file reached without a link, at most
// MaxCkptRequest bytes, well-formed, its id the one its name says; it
// returns the request and the SHA-256 of its bytes.
func ReadCkptRequest(path, id string) (*CkptRequest, [32]byte, error) {
	data, err := readRegular(path, MaxCkptRequest)
	if err != nil {
		return nil, [32]byte{}, err
	}
	sum := sha256.Sum256(data)
	var r CkptRequest
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, sum, fmt.Errorf("checkpoint request: %w", err)
	}
	switch {
	case r.ID != id:
		return nil, sum, fmt.Errorf("checkpoint request: id %q in a file named %q", r.ID, id)
	case r.Script != "" && !filepath.IsAbs(r.Cwd):
		return nil, sum, fmt.Errorf("checkpoint request: cwd %q is not absolute", r.Cwd)
	case r.Script != "" && len(r.Paths) > 0:
		return nil, sum, errors.New("checkpoint request: both a script and paths")
	case len(r.Paths) > maxCkptPaths:
		return nil, sum, fmt.Errorf("checkpoint request: more than %d paths", maxCkptPaths)
	}
	return &r, sum, nil
}

// maxCkptPaths bounds a write's paths (MultiEdit names one file, an
// apply_patch a few dozen).
const maxCkptPaths = 4096

func readRegular(path string, max int64) ([]byte, error) {
	fh, err := queue.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, max)
	}
	return data, nil
}
