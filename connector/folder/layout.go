package folder

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Dir is the .sandbox/ directory itself.
func (f Folder) Dir() string { return filepath.Join(f.Root, DirName) }

// Policy is the user's policy file.
func (f Folder) Policy() string { return filepath.Join(f.Dir(), "policy.yaml") }

// Escalations is the parent of the queue's state directories.
func (f Folder) Escalations() string { return filepath.Join(f.Dir(), "escalations") }

// Tmp is where writers stage a request before renaming it into Pending.
func (f Folder) Tmp() string { return filepath.Join(f.Escalations(), "tmp") }

// Pending holds requests waiting for a human.
func (f Folder) Pending() string { return filepath.Join(f.Escalations(), "pending") }

// Staging is where the trusted side stages what it writes into claimed/,
// done/ and joins/ (results, deny notes, the join index) before renaming
// it into place. Unlike Tmp it is not writable in the jail: a jailed
// process that could open a staged result as it appears would keep its
// handle across the rename and could rewrite the decision.
func (f Folder) Staging() string { return filepath.Join(f.Escalations(), "staging") }

// Claimed holds requests an approver has taken.
func (f Folder) Claimed() string { return filepath.Join(f.Escalations(), "claimed") }

// Done holds ID.json results.
func (f Folder) Done() string { return filepath.Join(f.Escalations(), "done") }

// Quarantine holds request files that failed validation.
func (f Folder) Quarantine() string { return filepath.Join(f.Escalations(), "quarantine") }

// Joins holds the queue's index of request hashes, for joining repeats.
func (f Folder) Joins() string { return filepath.Join(f.Escalations(), "joins") }

// Waiters holds one lock file per waiter that joined a request.
func (f Folder) Waiters() string { return filepath.Join(f.Escalations(), "waiters") }

// Results holds the full output of executed requests, ID.log.
func (f Folder) Results() string { return filepath.Join(f.Dir(), "results") }

// ResultLog is the full output log of one request.
func (f Folder) ResultLog(id string) string { return filepath.Join(f.Results(), id+".log") }

// Audit is where versions before the audit log moved to the per-user
// state kept it (audit.Dir moves it from here; nothing creates it now).
func (f Folder) Audit() string { return filepath.Join(f.Dir(), "audit") }

// Originals holds content-addressed copies of files the agent changed.
func (f Folder) Originals() string { return filepath.Join(f.Dir(), "originals") }

// Shims holds the PATH shims for run mode.
func (f Folder) Shims() string { return filepath.Join(f.Dir(), "shims") }

// PinStash is where the jail's placeholders wait between runs (see
// jailspec.FS.PinStash). An agent's worktree (MAIN/.sandbox/worktrees/NAME,
// AgentWorktree) uses MAIN's, which every worktree of the repository
// shares: a spawn's new worktree takes the placeholders the agents before
// it left there instead of making a dozen (an inode each: 0.1 ms, several
// while the file system is busy with a removal). MAIN's .sandbox must be a
// directory (not a link), else the worktree keeps its own.
func (f Folder) PinStash() string {
	if main, _, ok := f.AgentWorktree(); ok {
		m := Folder{Root: main}
		if fi, err := os.Lstat(m.Dir()); err == nil && fi.IsDir() {
			return filepath.Join(m.Dir(), pinsName)
		}
	}
	return filepath.Join(f.Dir(), pinsName)
}

const pinsName = "pins"

// worktreesName is the directory of Worktrees, inside DirName.
const worktreesName = "worktrees"

// Worktrees holds the worktrees of the repository's agents (`sandbox
// agents`), agent NAME's at Worktrees()/NAME. Only spawn makes it.
func (f Folder) Worktrees() string { return filepath.Join(f.Dir(), worktreesName) }

// Subdirs lists every directory `sandbox init` creates, parents first.
func (f Folder) Subdirs() []string {
	return []string{
		f.Dir(), f.Escalations(), f.Tmp(), f.Pending(), f.Staging(), f.Claimed(), f.Done(),
		f.Quarantine(), f.Joins(), f.Waiters(), f.Results(), f.Originals(), f.Shims(),
	}
}

// Private lists the directories that only the trusted side reads or
// writes, created 0700: staged decisions, quarantined files and the full
// output of executed requests.
func (f Folder) Private() []string {
	return []string{f.Staging(), f.Quarantine(), f.Results()}
}

// Create makes every directory of the layout that is missing (parents
// first): the private ones 0700, the others 0755. A private directory
// that an older version created more open is narrowed to 0700. Existing
// entries must be directories, not links.
func (f Folder) Create() error {
	private := map[string]bool{}
	for _, d := range f.Private() {
		private[d] = true
	}
	for _, d := range f.Subdirs() {
		perm := os.FileMode(0o755)
		if private[d] {
			perm = 0o700
		}
		if err := os.Mkdir(d, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", d, err)
		}
		fi, err := os.Lstat(d)
		if err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s exists and is not a directory", d)
		}
		if private[d] && fi.Mode().Perm() != perm {
			if err := os.Chmod(d, perm); err != nil {
				return fmt.Errorf("create %s: %w", d, err)
			}
		}
	}
	return nil
}
