package jsonedit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
)

// Change is what an install did to one file, as the install manifest
// keeps it. Command identifies sandbox's entries in the file.
type Change struct {
	File       string `json:"file"` // relative to the project root
	Command    string `json:"command"`
	Created    bool   `json:"created,omitempty"`
	CreatedDir bool   `json:"created_dir,omitempty"`
	Sites      []Site `json:"sites"`
}

// Edit is one integration's merge into one file.
type Edit struct {
	// File is the path relative to the project root.
	File string
	// Command identifies sandbox's entries (the command line they run).
	Command string
	// Add adds whatever of sandbox's entries is missing from d and
	// returns the sites it added (none when everything is there).
	Add func(d *Doc) ([]Site, error)
	// Ours recognises the entries added for command.
	Ours func(command string) Matcher
}

// Install merges e into the file under root. prev is the change an
// earlier install recorded (nil for none). When everything is already in
// place it returns prev and changed false, and writes nothing. A
// malformed file is an error that changes nothing.
func (e Edit) Install(root string, prev *Change) (ch *Change, changed bool, err error) {
	path := filepath.Join(root, e.File)
	src, perm, missing, err := read(path)
	if err != nil {
		return nil, false, err
	}
	d, err := Parse(e.File, src)
	if err != nil {
		return nil, false, err
	}
	old := Change{File: e.File, Command: e.Command}
	if prev != nil {
		old = *prev
	}
	if prev != nil && old.Command != e.Command {
		if err := d.Undo(old.Sites, e.Ours(old.Command)); err != nil {
			return nil, false, err
		}
		old.Sites = nil
	}
	sites, err := e.Add(d)
	if err != nil {
		return nil, false, err
	}
	if prev != nil && len(sites) == 0 && prev.Command == e.Command {
		return prev, false, nil
	}
	ch = &Change{File: e.File, Command: e.Command, Created: old.Created || missing,
		CreatedDir: old.CreatedDir, Sites: append(old.Sites, sites...)}
	if bytes.Equal(d.Bytes(), src) && !missing {
		return ch, prev == nil || len(sites) > 0, nil
	}
	if missing {
		made, err := ensureDir(filepath.Dir(path))
		if err != nil {
			return nil, false, err
		}
		ch.CreatedDir = ch.CreatedDir || made
	}
	if err := atomicfile.WriteFile(path, d.Bytes(), perm); err != nil {
		return nil, false, err
	}
	return ch, true, nil
}

// Uninstall takes out of the file what ch recorded, recognising
// sandbox's entries with ours. A file (and directory) that the install
// created is removed when nothing else is left in it.
func Uninstall(root string, ch *Change, ours Matcher) error {
	return UninstallFunc(root, ch, func(d *Doc) error { return d.Undo(ch.Sites, ours) })
}

// UninstallFunc is Uninstall with the edit done by undo, for files whose
// entries need more than Undo (say, a hook inside a group the user has
// since added hooks of their own to).
func UninstallFunc(root string, ch *Change, undo func(d *Doc) error) error {
	path := filepath.Join(root, ch.File)
	src, perm, missing, err := read(path)
	if err != nil || missing {
		return err
	}
	d, err := Parse(ch.File, src)
	if err != nil {
		return err
	}
	if err := undo(d); err != nil {
		return err
	}
	if ch.Created && bytes.Equal(bytes.TrimSpace(d.Bytes()), []byte("{}")) {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("uninstall: %w", err)
		}
		if ch.CreatedDir {
			os.Remove(filepath.Dir(path)) // only if empty
		}
		return nil
	}
	if bytes.Equal(d.Bytes(), src) {
		return nil
	}
	return atomicfile.WriteFile(path, d.Bytes(), perm)
}

// read reads path; a missing file reads as "{}" with missing set. A link
// or anything but a regular file is refused: the rename that writes it
// would replace the link, not its target.
func read(path string) (src []byte, perm fs.FileMode, missing bool, err error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []byte("{}\n"), 0o644, true, nil
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("%s: not a regular file: %w", path, ErrMalformed)
	}
	src, err = os.ReadFile(path)
	if err != nil {
		return nil, 0, false, fmt.Errorf("%s: %w", path, err)
	}
	return src, fi.Mode().Perm(), false, nil
}

// ensureDir creates dir when missing and reports whether it did.
func ensureDir(dir string) (bool, error) {
	if _, err := os.Lstat(dir); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("%s: %w", dir, err)
	}
	return true, nil
}
