package launcher

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/gitworktree"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// maxExclude bounds the repository's info/exclude that a view copies.
const maxExclude = 1 << 20

// untrackedPlaceholders are the protected names (protectedFiles) whose
// placeholder git would list as an untracked file: the files outside
// .git. A missing protected directory's placeholder is an empty
// directory, which git does not list.
func untrackedPlaceholders() []string {
	var names []string
	for p := range protectedFiles {
		if p != ".git" && !strings.HasPrefix(p, ".git/") {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	return names
}

// excludeView gives the jail a view of the repository's info/exclude (the
// common one, for a linked worktree) that adds, anchored at the top, each
// protected file this run pins with a placeholder because it is missing
// now: in the jail `git status` does not list the placeholders and `git
// add -A` does not commit them (nor `sandbox agents land` bring them into
// MAIN). The repository's own file is left as it is. ok is false when
// root is no git work tree, nothing is missing, or info/exclude is not a
// regular file (git init makes one; a missing one is made, empty, in a
// real info/ directory).
//
// The view lives in the per-user state dir (no jail sees it but through
// the bind), one per repository, and is written only when it changes;
// dir is always "" (nothing to remove after the run).
func excludeView(root, stateDir string) (sub jailspec.Substitute, dir string, ok bool, err error) {
	gitDir := filepath.Join(root, ".git")
	if w, werr := gitworktree.Find(root); werr == nil {
		gitDir = w.Common
	} else if fi, serr := os.Lstat(gitDir); serr != nil || !fi.IsDir() {
		return sub, "", false, nil
	}
	var lines []string
	for _, name := range untrackedPlaceholders() {
		if _, err := os.Lstat(filepath.Join(root, name)); errors.Is(err, os.ErrNotExist) {
			lines = append(lines, "/"+name)
		}
	}
	if len(lines) == 0 {
		return sub, "", false, nil
	}
	info := filepath.Join(gitDir, "info")
	if fi, err := os.Lstat(info); err != nil || !fi.IsDir() {
		return sub, "", false, nil
	}
	path := filepath.Join(info, "exclude")
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
		f.Close() // a bind needs a file to bind over
	}
	data, err := readRegular(path, maxExclude)
	if err != nil {
		return sub, "", false, nil // a link or an odd file: git reads it as it is
	}
	view := append([]byte{}, data...)
	if len(view) > 0 && view[len(view)-1] != '\n' {
		view = append(view, '\n')
	}
	view = append(view, "# sandbox run: placeholders that pin missing protected names in this jail\n"...)
	view = append(view, strings.Join(lines, "\n")+"\n"...)
	// one view per repository, kept between runs and replaced when it
	// differs: a connector's jailed commands come one after another
	if stateDir == "" {
		if stateDir, err = userstate.DefaultDir(); err != nil {
			return sub, "", false, err
		}
	}
	sum := sha256.Sum256([]byte(path))
	src := filepath.Join(stateDir, "views", "exclude-"+hex.EncodeToString(sum[:8]))
	if old, err := readRegular(src, maxExclude+4096); err != nil || !bytes.Equal(old, view) {
		if err := os.MkdirAll(filepath.Dir(src), 0o700); err != nil {
			return sub, "", false, fmt.Errorf("git exclude view: %w", err)
		}
		// a bound view keeps its inode: a run that started with the old
		// one still sees it whole
		if err := atomicfile.Replace(src, view, 0o600); err != nil {
			return sub, "", false, fmt.Errorf("git exclude view: %w", err)
		}
	}
	return jailspec.Substitute{Path: path, Source: src}, "", true, nil
}
