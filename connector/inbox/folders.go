package inbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// ErrNotAgentFolder is a registry record naming a worktree that is not
// MAIN/.sandbox/worktrees/NAME, or a path to it through a link: its
// requests are not shown (a forged or stale record must not bring a
// folder of somebody else's choosing into the human's inbox).
var ErrNotAgentFolder = errors.New("not an agent worktree of this repository")

// AgentFolder is the folder of agent name when worktree (the registry
// record's) is exactly MAIN/.sandbox/worktrees/NAME: every directory from
// MAIN down to the worktree and its .sandbox/ is a real directory, not a
// link (a link is never followed, even one pointing back inside).
func AgentFolder(main folder.Folder, name, worktree string) (folder.Folder, error) {
	want := filepath.Join(main.Worktrees(), name)
	if name == "" || name == "." || name == ".." || filepath.Base(want) != name || filepath.Clean(worktree) != want {
		return folder.Folder{}, fmt.Errorf("agent %q: worktree %q: %w", name, worktree, ErrNotAgentFolder)
	}
	for _, dir := range []string{main.Dir(), main.Worktrees(), want, filepath.Join(want, folder.DirName)} {
		fi, err := os.Lstat(dir)
		if err != nil {
			return folder.Folder{}, fmt.Errorf("agent %q: %w", name, err)
		}
		if !fi.IsDir() {
			return folder.Folder{}, fmt.Errorf("agent %q: %s is a link or not a directory: %w", name, dir, ErrNotAgentFolder)
		}
	}
	f, err := folder.New(want)
	if err != nil {
		return folder.Folder{}, err
	}
	if f.Root != want {
		return folder.Folder{}, fmt.Errorf("agent %q: %s resolves to %s: %w", name, want, f.Root, ErrNotAgentFolder)
	}
	return f, nil
}
