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
//
// With StageIn the new content is staged in that directory (one the jail
// cannot write), not beside the target; see StageIn.
func ApplyWrite(root, path string, content []byte, opts ...WriteOption) (WriteOutcome, error) {
	return apply(root, path, false, newWriteConfig(opts), func([]byte) ([]byte, error) { return content, nil })
}

// WriteOption configures ApplyWrite and ApplyEdits.
type WriteOption func(*writeConfig)

type writeConfig struct {
	stage string // staging directory; "" stages beside the target
}

func newWriteConfig(opts []WriteOption) writeConfig {
	var c writeConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// StageIn stages the new content in dir and renames it into place from
// there. A temporary file beside the target is exposed to whoever can
// write the target's directory (a jailed process in the project): it can
// rename a file of its own over the temporary name between the write and
// the rename, and the approved name then holds its content. dir must be a
// directory the jail cannot write (the queue's trusted staging directory);
// when it lies on another file system than the target, the write stages
// beside the target after all. Either way the file in place after the
// rename is checked to be the one written (same inode, same bytes), and a
// mismatch fails the write with ErrSwapped.
func StageIn(dir string) WriteOption { return func(c *writeConfig) { c.stage = dir } }

// ApplyEdits applies edits, in order, to the existing regular file at path
// (see Edit and applyEdits), and writes the result as ApplyWrite does,
// keeping the file's mode. The file must exist, have one link and be at
// most MaxEditSize bytes.
func ApplyEdits(root, path string, edits []Edit, opts ...WriteOption) (WriteOutcome, error) {
	if err := checkEdits(edits); err != nil {
		return WriteOutcome{}, fmt.Errorf("broker: edit %s: %w", path, err)
	}
	return apply(root, path, true, newWriteConfig(opts), func(old []byte) ([]byte, error) {
		s, err := applyEdits(string(old), edits)
		return []byte(s), err
	})
}

// apply locates path and replaces it with what change makes of its old
// content (read only for edits).
func apply(root, path string, edit bool, c writeConfig, change func(old []byte) ([]byte, error)) (WriteOutcome, error) {
	verb := "write"
	if edit {
		verb = "edit"
	}
	t, err := locate(root, path)
	if err != nil {
		return WriteOutcome{}, fmt.Errorf("broker: %s %s: %w", verb, path, err)
	}
	created, data, err := t.replace(edit, c, change)
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
