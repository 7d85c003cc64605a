package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// DirName is the audit log's directory inside the folder's per-user state.
const DirName = "audit"

// Dir is where f's audit log lives: in the per-user state beside the
// anchor, not in the project. A project's .sandbox/ is swept away by the
// user's own `git clean -fdx` or `git stash --all` (ignored files go with
// them), and the log must outlive both; it also moves the log out of every
// jail's sight. A log an older version kept in .sandbox/audit/ is moved
// here the first time.
func Dir(f folder.Folder, st *userstate.State) (string, error) {
	if st == nil || len(st.Key) == 0 {
		return "", ErrNoKey
	}
	state, err := st.FolderDir(f.Root)
	if err != nil {
		return "", fmt.Errorf("audit dir: %w", err)
	}
	dir := filepath.Join(state, DirName)
	if err := ensureDir(dir); err != nil {
		return "", err
	}
	if err := migrateLegacy(f.Audit(), dir); err != nil {
		return "", err
	}
	return dir, nil
}

// migrateLegacy moves the *.jsonl files of an older version's
// .sandbox/audit/ into dir, once: only regular files, never over a file
// dir already holds, by rename (or copy where the state is on another
// file system). A missing legacy dir is the common case and costs a stat.
func migrateLegacy(legacy, dir string) error {
	entries, err := os.ReadDir(legacy)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("audit: legacy log %s: %w", legacy, err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		if err := moveFile(filepath.Join(legacy, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("audit: moving the legacy log: %w", err)
		}
	}
	return nil
}

func moveFile(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return nil // already moved (or a newer file of the same name): keep it
	}
	if err := os.Rename(from, to); err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		return err
	}
	return os.Remove(from)
}
