package folder

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
)

// GitIgnore is .sandbox/.gitignore. Everything in .sandbox/ but the
// policy is local state (requests, results with command output, logs,
// the audit log, copies of originals) that `git add -A` must not commit.
func (f Folder) GitIgnore() string { return filepath.Join(f.Dir(), ".gitignore") }

// gitIgnoreRules are the lines .sandbox/.gitignore must start with; a
// user's own lines may follow them (later lines win in git).
var gitIgnoreRules = []byte(`# Written by sandbox init: only the policy, the record of what init wired
# (installed.json, for uninstall) and this file belong in git; the rest of
# .sandbox/ is local state. Lines you add below are kept.
*
!/.gitignore
!/policy.yaml
!/installed.json
`)

// oldGitIgnoreRules are the rules earlier versions wrote, replaced in place.
var oldGitIgnoreRules = [][]byte{[]byte(`# Written by sandbox init: only the policy (and this file) belong in git;
# the rest of .sandbox/ is local state. Lines you add below are kept.
*
!/.gitignore
!/policy.yaml
`)}

// WriteGitIgnore creates .sandbox/.gitignore, or puts its rules at the top
// of an existing one that lacks them, keeping the user's lines. It reports
// whether it changed anything.
func (f Folder) WriteGitIgnore() (bool, error) {
	path := f.GitIgnore()
	old, err := readSmallFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if bytes.HasPrefix(old, gitIgnoreRules) {
		return false, nil
	}
	for _, o := range oldGitIgnoreRules {
		old = bytes.TrimPrefix(old, o)
	}
	data := append(append([]byte{}, gitIgnoreRules...), old...)
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return false, err
	}
	return true, nil
}

// readSmallFile reads a regular file (not a link) of at most 64 KiB.
func readSmallFile(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > 64<<10 {
		return nil, fmt.Errorf("not a small regular file")
	}
	return os.ReadFile(path)
}
