package broker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// MaxEditSize is the largest file ApplyEdits reads.
const MaxEditSize = 64 << 20

// NewFileMode is the mode of a file that ApplyWrite creates. An existing
// file keeps its permission bits (setuid and setgid are dropped).
const NewFileMode = 0o644

// WriteOutcome describes the file as written.
type WriteOutcome struct {
	Path    string // cleaned absolute path
	SHA256  string // hex digest of the new content
	Created bool   // the file did not exist before
	Size    int64
}

// ApplyWrite replaces (or creates) the file at path with content,
// atomically: a temporary file in the same directory, fsync, rename, fsync
// of the directory. Missing parent directories are created (mode 0755), as
// Claude Code's Write does.
//
// Links are never followed. Below root (path relative, or absolute and
// inside root) no component may be a symbolic link. Outside root (an
// absolute path a human approved) the same holds, except that a link owned
// by root is followed when the broker is not itself root: the system's own
// layout (/var -> private/var) that an agent running as the user cannot have
// planted; its target is walked under the same rules. The target itself
// must be a regular file or absent: a link there is refused (ErrSymlink),
// never replaced, and its target is untouched.
func ApplyWrite(root, path string, content []byte) (WriteOutcome, error) {
	return apply(root, path, false, func([]byte) ([]byte, error) { return content, nil })
}

// ApplyEdits applies edits, in order, to the existing regular file at path
// (see Edit and applyEdits), and writes the result as ApplyWrite does,
// keeping the file's mode. The file must exist, have one link and be at
// most MaxEditSize bytes.
func ApplyEdits(root, path string, edits []Edit) (WriteOutcome, error) {
	if err := checkEdits(edits); err != nil {
		return WriteOutcome{}, fmt.Errorf("broker: edit %s: %w", path, err)
	}
	return apply(root, path, true, func(old []byte) ([]byte, error) {
		s, err := applyEdits(string(old), edits)
		return []byte(s), err
	})
}

// apply locates path and replaces it with what change makes of its old
// content (read only for edits).
func apply(root, path string, edit bool, change func(old []byte) ([]byte, error)) (WriteOutcome, error) {
	verb := "write"
	if edit {
		verb = "edit"
	}
	t, err := locate(root, path)
	if err != nil {
		return WriteOutcome{}, fmt.Errorf("broker: %s %s: %w", verb, path, err)
	}
	created, data, err := t.replace(edit, change)
	if err != nil {
		return WriteOutcome{}, fmt.Errorf("broker: %s %s: %w", verb, t.abs, err)
	}
	sum := sha256.Sum256(data)
	return WriteOutcome{Path: t.abs, SHA256: hex.EncodeToString(sum[:]), Created: created, Size: int64(len(data))}, nil
}

// target is a path split for a walk that follows no links.
type target struct {
	abs    string   // cleaned absolute path
	base   string   // trusted start of the walk: the real root, or the file system root
	dirs   []string // components from base to the parent directory
	name   string   // the final component
	inside bool     // below root
}

// locate cleans path (relative means relative to root) and splits it.
func locate(root, path string) (target, error) {
	if path == "" {
		return target{}, fmt.Errorf("%w: empty", ErrPath)
	}
	rootReal, err := realRoot(root)
	if err != nil {
		return target{}, fmt.Errorf("%w: %w", ErrPath, err)
	}
	rootAbs, _ := filepath.Abs(root)
	t := target{abs: filepath.Clean(path)}
	if !filepath.IsAbs(path) {
		t.abs = filepath.Join(rootReal, path)
	}
	rel, inside := relWithin(rootReal, t.abs)
	if !inside {
		rel, inside = relWithin(rootAbs, t.abs)
	}
	t.inside, t.base = inside, rootReal
	if !inside && !filepath.IsAbs(path) {
		return target{}, fmt.Errorf("%w: %s leaves the project", ErrPath, path)
	}
	if !inside {
		t.base = filepath.VolumeName(t.abs) + string(filepath.Separator)
		rel = t.abs[len(t.base):]
	}
	if rel == "." || rel == "" {
		return target{}, fmt.Errorf("%w: %s is a directory", ErrPath, t.abs)
	}
	t.dirs = splitPath(filepath.Dir(rel))
	t.name = filepath.Base(rel)
	return t, nil
}

func relWithin(root, p string) (string, bool) {
	if !folder.Within(root, p) {
		return "", false
	}
	rel, err := filepath.Rel(root, p)
	return rel, err == nil
}

// splitPath splits a clean relative path into components ("." is none).
func splitPath(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(rel, string(filepath.Separator))
}
