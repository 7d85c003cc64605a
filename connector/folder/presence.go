package folder

import "path/filepath"

// Presence says whether an approver (sandbox watch, sandbox serve) is
// watching a folder right now.
type Presence int

const (
	// PresenceUnknown: this system or this process cannot tell (no file
	// locks here, or the lock file is out of sight, as in some jails).
	PresenceUnknown Presence = iota
	// PresenceWatching: at least one approver holds the folder's lock.
	PresenceWatching
	// PresenceNobody: no approver is running for this folder.
	PresenceNobody
)

// ApproverLock is the file every running approver holds a shared lock on
// for as long as it watches the folder; the hook, `sandbox request` and the
// shims test it so that nobody waits minutes in silence for no one. It
// sits beside the queue, where a jailed process may read but not write: a
// jail that holds a lock on it only fakes "watching", which makes its own
// requests wait as they did before this existed.
func (f Folder) ApproverLock() string { return filepath.Join(f.Escalations(), "approvers.lock") }

// HowToApprove is the one line every waiter prints when nobody watches f.
// For an agent's worktree (MAIN/.sandbox/worktrees/NAME) it names the
// inbox of MAIN, where every agent's requests show.
func (f Folder) HowToApprove() string {
	if main, name, ok := f.AgentWorktree(); ok {
		return "no approver is watching agent " + name + ": start the inbox of its repository in another terminal with `cd " +
			quoteArg(main) + " && sandbox watch` (or `sandbox serve` there for the web page)"
	}
	return "no approver is watching " + f.Root + ": start one in another terminal with `sandbox watch " +
		quoteArg(f.Root) + "` (or `sandbox serve " + quoteArg(f.Root) + "` for the web page)"
}

// AgentWorktree says whether f is the worktree of agent name of the
// repository at main (sandbox agents: MAIN/.sandbox/worktrees/NAME), by
// its place alone.
func (f Folder) AgentWorktree() (main, name string, ok bool) {
	wts := filepath.Dir(f.Root)
	if filepath.Base(wts) != worktreesName || filepath.Base(filepath.Dir(wts)) != DirName {
		return "", "", false
	}
	return filepath.Dir(filepath.Dir(wts)), filepath.Base(f.Root), true
}

// quoteArg single-quotes s for a POSIX shell when it needs it.
func quoteArg(s string) string {
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == '@' || r == ',' || r == '=' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "'" + replaceQuotes(s) + "'"
		}
	}
	return s
}

func replaceQuotes(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, `'\''`...)
			continue
		}
		out = append(out, s[i])
	}
	return string(out)
}
