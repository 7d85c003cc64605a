package review

import (
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// engineTTL is how long a loaded policy engine is reused: a listing of
// 1,000 pending requests loads the policy once, not 1,000 times, and a
// policy accepted a moment ago is in force for the next request shown.
const engineTTL = time.Second

// Source finds out the facts about requests of one folder. It is safe
// for concurrent use.
type Source struct {
	Folder folder.Folder
	State  *userstate.State
	// EnvPass is the broker's environment pass-list (nil: the default).
	EnvPass []string
	// Jail, when set, describes where an approved command of req runs:
	// its grant jail and what it grants (broker.Describe), or why it runs
	// without one. nil: approved commands run as the user, unjailed.
	Jail func(req *queue.Request) []string
	Log  *slog.Logger

	mu sync.Mutex
	// engine and loaded are the policy engine reused for engineTTL
	// (guarded by mu).
	engine *policy.Engine
	loaded time.Time
}

// Review is New(req, s.Facts(req)).
func (s *Source) Review(req *queue.Request) *Review { return New(req, s.Facts(req)) }

// Facts recomputes the policy's decision for req, says where an approval
// would run and whether anybody waits for it.
func (s *Source) Facts(req *queue.Request) Facts {
	f := Facts{Root: s.Folder.Root, Where: s.where(req), Stale: Stale(s.Folder, req.ID)}
	// The policy's decision recomputed from what req asks (with the
	// built-in rules alone when the policy cannot be loaded), where it
	// really comes from, and whether it will be refused whatever is
	// decided; what the file says about itself is only a claim.
	e := s.policy()
	a := approver.Assess(e, s.Folder, req)
	f.Decision, f.Recomputed = a.Decision, len(a.Decision.Parts) > 0
	if e != nil && f.Recomputed {
		f.Always = e.Proposals(f.Decision)
	}
	f.Origin, f.Claims, f.Refused = a.Origin, a.Claims, a.Refused
	return f
}

func (s *Source) policy() *policy.Engine {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.engine != nil && time.Since(s.loaded) < engineTTL {
		return s.engine
	}
	log := s.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e, _, err := store.Load(s.Folder, s.State, log)
	if err != nil {
		log.Warn("review: the policy cannot be loaded; showing the requester's own reasons", "err", err)
		s.engine = nil
		return nil
	}
	s.engine, s.loaded = e, time.Now()
	return e
}

// where says, in a few lines, where an approval of req runs: inside what
// (the grant jail and what it grants, from Jail; without it, as the
// approver's user outside any jail, said plainly), in which directory and
// repository, with which environment.
func (s *Source) where(req *queue.Request) []string {
	switch req.Kind {
	case queue.KindShell:
		dir := req.Cwd
		if dir == "" {
			dir = s.Folder.Root
		}
		in := dir
		if real, err := filepath.EvalSymlinks(dir); err == nil && real != filepath.Clean(dir) {
			in += " (a link to " + real + ")"
		}
		if s.Jail != nil {
			return append(s.Jail(req), "in "+in, repository(dir, s.Folder.Root), "environment: "+envLine(s.EnvPass))
		}
		return []string{
			"runs as you (" + queue.LocalUser() + "), outside any jail, with your full rights, in " + in,
			repository(dir, s.Folder.Root),
			"environment: " + envLine(s.EnvPass),
		}
	case queue.KindWrite:
		return []string{"writes as you (" + queue.LocalUser() + "), outside any jail, with your full rights"}
	case queue.KindRead:
		return []string{"reads as you (" + queue.LocalUser() + "), outside any jail; the content goes to the agent"}
	case queue.KindNetwork:
		return []string{"opens the connection for the agent's process (the egress proxy lets it through)"}
	case queue.KindMCP:
		return []string{"calls the MCP tool as you, outside any jail"}
	}
	return nil
}

// repository names the git repository a command in dir would use: the
// nearest .git upward (a file named .git points elsewhere, which is said),
// and whether it is the project's own.
func repository(dir, root string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		if fi, err := os.Lstat(p); err == nil {
			return "repository: " + describeGit(p, fi, d, root)
		}
		if d == filepath.Dir(d) {
			return "repository: none (no .git above " + dir + ")"
		}
	}
}

func describeGit(p string, fi os.FileInfo, d, root string) string {
	s := p
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		t, _ := os.Readlink(p)
		s += " (a link to " + t + ")"
	case fi.Mode().IsRegular():
		data, _ := os.ReadFile(p)
		s += " (a .git file: " + strings.TrimSpace(string(data)) + ")"
	default:
		if data, err := os.ReadFile(filepath.Join(p, "commondir")); err == nil {
			s += " (commondir: " + strings.TrimSpace(string(data)) + ")"
		}
	}
	if d != filepath.Clean(root) {
		s += "; not the project's own repository"
	}
	return s
}

// envLine names the variables an approved command receives.
func envLine(pass []string) string {
	if pass == nil {
		pass = broker.DefaultPassList
	}
	out := make([]string, len(pass))
	for i, e := range pass {
		if e == "PATH="+broker.DefaultPATH && runtime.GOOS != "windows" {
			e = "PATH (yours, without entries in the project or the temp dirs)"
		}
		out[i] = e
	}
	return "your environment, only " + strings.Join(out, " ")
}

// Stale says why nobody waits for request id any more, or "" while
// someone may: its creator gave up (waiters/ID.gone) and no joiner holds
// its registration. A request whose requester left would run with nobody
// receiving the output.
func Stale(f folder.Folder, id string) string {
	dir := f.Waiters()
	if _, err := os.Lstat(filepath.Join(dir, id+".gone")); err != nil {
		return ""
	}
	names, _ := filepath.Glob(filepath.Join(dir, id+".*.lock"))
	for _, n := range names {
		if held(n) {
			return ""
		}
	}
	return "its requester stopped waiting: nobody will receive the output"
}
