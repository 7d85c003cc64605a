package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// State is where an agent is in its life.
type State string

// The states of an agent. Waiting and idle are running agents seen from
// the inbox (a pending request; no output for a while); done, failed and
// stopped are final until resume.
const (
	Starting State = "starting"
	Running  State = "running"
	Waiting  State = "waiting"
	Idle     State = "idle"
	Done     State = "done"
	Failed   State = "failed"
	Stopped  State = "stopped"
)

// Final reports whether s is a state no supervisor is behind.
func (s State) Final() bool { return s == Done || s == Failed || s == Stopped }

// Record is one agent in the registry (agent.json).
type Record struct {
	Name     string    `json:"name"`
	Agent    string    `json:"agent"` // claude, codex, gemini, or "command"
	Argv     []string  `json:"argv"`  // what runs in the jail
	Headless bool      `json:"headless"`
	Task     string    `json:"task,omitempty"`
	Branch   string    `json:"branch"`   // sandbox/NAME
	Base     string    `json:"base"`     // commit id
	BaseRef  string    `json:"base_ref"` // what the user gave, or HEAD
	Worktree string    `json:"worktree"` // absolute real path
	State    State     `json:"state"`
	PID      int       `json:"pid,omitempty"` // supervisor
	Exit     *int      `json:"exit,omitempty"`
	Created  time.Time `json:"created"`
	Started  time.Time `json:"started,omitzero"`
	Ended    time.Time `json:"ended,omitzero"`
	// Error says why a failed agent failed when it did not get to exit.
	Error string `json:"error,omitempty"`
	// AllowDegraded names the jail layers the spawning human accepted as
	// degraded or missing (sandbox run --allow-degraded).
	AllowDegraded []string `json:"allow_degraded,omitempty"`
	// CI: no human; the policy's ci: section decides the agent's
	// escalations, and the supervisor keeps their report (ci.json).
	CI bool `json:"ci,omitempty"`
}

// Registry is the agents of one repository (MAIN), kept in the per-user
// state dir: STATE/agents/PROJECT/NAME/{agent.json,log,attach.sock,lock}.
type Registry struct {
	Main folder.Folder
	Dir  string // STATE/agents/PROJECT, mode 0700
}

// maxRecord bounds agent.json (a task text is the only large field).
const maxRecord = 1 << 20

// Open opens (creating) the registry of main in the per-user state dir
// stateDir. PROJECT is the key userstate gives main's folder.
func Open(main folder.Folder, stateDir string) (*Registry, error) {
	key := filepath.Base((&userstate.State{Dir: stateDir}).FolderPath(main.Root))
	dir := filepath.Join(stateDir, "agents", key)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("agents registry: %w", err)
	}
	return &Registry{Main: main, Dir: dir}, nil
}

// Worktree is where agent name's worktree lives.
func (r *Registry) Worktree(name string) string { return filepath.Join(r.Main.Worktrees(), name) }

// AgentDir is the per-agent directory of the trusted side.
func (r *Registry) AgentDir(name string) string { return filepath.Join(r.Dir, name) }

// RecordPath is agent name's agent.json.
func (r *Registry) RecordPath(name string) string {
	return filepath.Join(r.AgentDir(name), "agent.json")
}

// LogPath is agent name's output log or terminal transcript.
func (r *Registry) LogPath(name string) string { return filepath.Join(r.AgentDir(name), "log") }

// SockPath is agent name's attach socket.
func (r *Registry) SockPath(name string) string {
	return filepath.Join(r.AgentDir(name), "attach.sock")
}

// CIReportPath is a CI agent's report of its escalations.
func (r *Registry) CIReportPath(name string) string {
	return filepath.Join(r.AgentDir(name), "ci.json")
}

// LockPath is the file whose lock a spawn, and then the supervisor, holds.
func (r *Registry) LockPath(name string) string { return filepath.Join(r.AgentDir(name), "lock") }

// Put writes rec atomically.
func (r *Registry) Put(rec Record) error {
	if err := ValidName(rec.Name); err != nil {
		return err
	}
	if err := os.MkdirAll(r.AgentDir(rec.Name), 0o700); err != nil {
		return fmt.Errorf("agent %s: %w", rec.Name, err)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("agent %s: %w", rec.Name, err)
	}
	return atomicfile.WriteFile(r.RecordPath(rec.Name), append(data, '\n'), 0o600)
}

// Update reads name's record, applies fn and writes it back. Only the
// holder of name's lock (its spawn or supervisor) should call it.
func (r *Registry) Update(name string, fn func(*Record)) (Record, error) {
	rec, err := r.read(name)
	if err != nil {
		return rec, err
	}
	fn(&rec)
	return rec, r.Put(rec)
}

// Get returns name's record, its state as List shows it.
func (r *Registry) Get(name string) (Record, error) {
	if err := ValidName(name); err != nil {
		return Record{}, err
	}
	rec, err := r.read(name)
	if err != nil {
		return rec, err
	}
	return r.live(rec), nil
}

// List returns every agent sorted by name, each as Get returns it. A
// record that cannot be read is skipped and named in the error.
func (r *Registry) List() ([]Record, error) {
	ents, err := os.ReadDir(r.Dir)
	if err != nil {
		return nil, fmt.Errorf("agents registry: %w", err)
	}
	var out []Record
	var errs []error
	for _, e := range ents {
		if !e.IsDir() || ValidName(e.Name()) != nil {
			continue
		}
		rec, err := r.Get(e.Name())
		switch {
		case errors.Is(err, ErrNoAgent):
			continue // a directory without a record: a spawn that did not get far
		case err != nil:
			errs = append(errs, err)
			continue
		}
		out = append(out, rec)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errors.Join(errs...)
}

// Remove deletes name's trusted-side files (record, log, socket, lock).
func (r *Registry) Remove(name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	if err := os.RemoveAll(r.AgentDir(name)); err != nil {
		return fmt.Errorf("agent %s: %w", name, err)
	}
	return nil
}

func (r *Registry) read(name string) (Record, error) {
	var rec Record
	f, err := os.Open(r.RecordPath(name))
	if errors.Is(err, fs.ErrNotExist) {
		return rec, fmt.Errorf("%s: %w", name, ErrNoAgent)
	}
	if err != nil {
		return rec, fmt.Errorf("agent %s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRecord+1))
	if err != nil {
		return rec, fmt.Errorf("agent %s: %w", name, err)
	}
	if len(data) > maxRecord || json.Unmarshal(data, &rec) != nil || rec.Name != name {
		return rec, fmt.Errorf("agent %s: %s: %w", name, r.RecordPath(name), ErrBadRecord)
	}
	return rec, nil
}

// live corrects a record whose supervisor is gone: a state that is not
// final reads as stopped when nobody holds the agent's lock (a spawn or a
// supervisor does while it lives; the kernel drops it when they die).
func (r *Registry) live(rec Record) Record {
	if rec.State.Final() || r.Held(rec.Name) {
		return rec
	}
	rec.State = Stopped
	return rec
}

// ValidName accepts NAME when it is a git branch component and a path
// element: [a-z0-9][a-z0-9._-]{0,62}, no "..", not ending in "." or
// ".lock".
func ValidName(name string) error {
	if !nameChars(name) || strings.Contains(name, "..") ||
		strings.HasSuffix(name, ".") || strings.HasSuffix(name, ".lock") {
		return fmt.Errorf("%q: %w: want lower-case letters, digits, '.', '_' or '-' (at most 63, starting with a letter or digit, no \"..\", not ending in \".\" or \".lock\")", name, ErrBadName)
	}
	return nil
}

// nameChars: [a-z0-9][a-z0-9._-]{0,62}, a git branch component and a
// file name on every OS (a loop: the regular expression's 62 repeats
// took a millisecond to compile on spawn's way to git).
func nameChars(name string) bool {
	if len(name) == 0 || len(name) > 63 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// MainOf is the repository an agents command works on when it stands in
// folder f: f itself, or the MAIN whose agent's worktree f is.
func MainOf(f folder.Folder) folder.Folder {
	if main, _, ok := f.AgentWorktree(); ok {
		return folder.Folder{Root: main}
	}
	return f
}

// DetachKey, then 'd', detaches an attached terminal (the agent keeps
// running); DetachKey twice sends one DetachKey to the agent. Ctrl-]
// (0x1d) is telnet's escape and no agent's shortcut.
const DetachKey = 0x1d

// DetachHelp says how to detach, for the human.
const DetachHelp = "Ctrl-] then d detaches; the agent keeps running"
