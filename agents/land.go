package agents

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Mode is how a land brings an agent's branch into the target branch.
type Mode string

const (
	// Merge makes one merge commit whose parents are the target and the
	// pinned commit (never a fast-forward: the landing stays visible).
	Merge Mode = "merge"
	// Squash makes one commit on the target with the branch's changes.
	Squash Mode = "squash"
	// Rebase replays the branch's commits onto the target, which then
	// fast-forwards to the last of them.
	Rebase Mode = "rebase"
)

// ParseMode accepts merge, squash and rebase.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Merge, Squash, Rebase:
		return m, nil
	}
	return "", fmt.Errorf("%w: mode %q: want merge, squash or rebase", ErrLandUsage, s)
}

// Landing is exactly what one approved land does. Land fixes it when the
// request is made, shows it, and carries it in the approved command's
// argv (ApplyArgv), which the request's content hash covers: the broker
// acts on these commit ids, never on what the branch or the agent's
// worktree say by the time it runs.
type Landing struct {
	Name   string // the agent
	Mode   Mode
	Head   string // the pinned commit of sandbox/NAME
	Into   string // the target branch (short name, refs/heads/Into)
	Target string // the target's commit when the land was requested
	// Ident is "Name <email>": the committer of the commits land makes
	// (and the author of merge and squash commits), taken from MAIN's
	// git config when the land is requested, since the broker's jail
	// reads no config but the repository's.
	Ident string
}

// Branch is the agent's branch.
func (l Landing) Branch() string { return "sandbox/" + l.Name }

var (
	commitRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`) })
	identRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^<>\n]+ <[^<>\n]*>$`) })
)

// Check validates every field, as ApplyArgs does for an argv it parses.
func (l Landing) Check() error {
	if err := ValidName(l.Name); err != nil {
		return err
	}
	if _, err := ParseMode(string(l.Mode)); err != nil {
		return err
	}
	for _, c := range []struct{ what, id string }{{"head", l.Head}, {"target commit", l.Target}} {
		if !commitRE().MatchString(c.id) {
			return fmt.Errorf("%w: %s %q is not a full commit id", ErrLandUsage, c.what, c.id)
		}
	}
	if !validBranch(l.Into) || l.Into == l.Branch() {
		return fmt.Errorf("%w: target branch %q", ErrLandUsage, l.Into)
	}
	if !identRE().MatchString(l.Ident) {
		return fmt.Errorf("%w: identity %q: want \"Name <email>\"", ErrLandUsage, l.Ident)
	}
	return nil
}

// validBranch accepts the branch names land targets: what git's
// check-ref-format accepts, minus the odd ones (no leading '-', no
// control characters, spaces or glob characters).
func validBranch(b string) bool {
	if b == "" || len(b) > 200 || strings.HasPrefix(b, "-") || strings.HasPrefix(b, "/") ||
		strings.HasSuffix(b, "/") || strings.HasSuffix(b, ".") || strings.HasSuffix(b, ".lock") ||
		strings.Contains(b, "..") || strings.Contains(b, "//") || strings.Contains(b, "@{") || b == "@" {
		return false
	}
	for _, r := range b {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`~^:?*[\`, r) {
			return false
		}
	}
	return true
}

// ApplyArgv is the command the approver runs for l: exe (the sandbox
// binary) `agents apply-land` with every field of l spelled out.
func ApplyArgv(exe string, l Landing) []string {
	return []string{exe, "agents", "apply-land", "--" + string(l.Mode),
		"--head", l.Head, "--into", l.Into, "--target", l.Target, "--ident", l.Ident, l.Name}
}
