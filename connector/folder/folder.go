// Package folder locates a project's .sandbox/ directory and names every
// path inside it, so that no other package spells the bus layout twice.
package folder

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DirName is the name of the bus directory at the top of a project.
const DirName = ".sandbox"

// ErrNotFound is returned when no .sandbox/ exists at or above a directory.
var ErrNotFound = errors.New("no .sandbox/ folder here or in any parent (run `sandbox init`)")

// Folder is a project that has (or will have) a .sandbox/ bus. Root is
// absolute and has its symlinks resolved.
type Folder struct {
	Root string
}

// New returns the Folder rooted at dir, made absolute with symlinks resolved.
// The directory must exist; .sandbox/ need not.
func New(dir string) (Folder, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Folder{}, fmt.Errorf("folder %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Folder{}, fmt.Errorf("folder %q: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return Folder{}, fmt.Errorf("folder %q: %w", dir, err)
	}
	if !fi.IsDir() {
		return Folder{}, fmt.Errorf("folder %q: not a directory", dir)
	}
	return Folder{Root: real}, nil
}

// Find returns the nearest folder at or above start that holds a .sandbox/
// directory, the way git finds .git.
func Find(start string) (Folder, error) {
	f, err := New(start)
	if err != nil {
		return Folder{}, err
	}
	for dir := f.Root; ; {
		fi, err := os.Lstat(filepath.Join(dir, DirName))
		if err == nil && fi.IsDir() {
			return Folder{Root: dir}, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return Folder{}, fmt.Errorf("%s: %w", f.Root, ErrNotFound)
		}
		dir = parent
	}
}

// Resolve picks the folder a command works on: the --dir flag, else the
// first positional argument, else the nearest .sandbox/ upward from the
// current directory. An explicit folder must already hold .sandbox/.
func Resolve(dirFlag string, args []string) (Folder, error) {
	explicit := dirFlag
	if explicit == "" && len(args) > 0 {
		explicit = args[0]
	}
	if explicit == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Folder{}, fmt.Errorf("current directory: %w", err)
		}
		return Find(wd)
	}
	f, err := New(explicit)
	if err != nil {
		return Folder{}, err
	}
	if !f.Exists() {
		return Folder{}, fmt.Errorf("%s: %w", f.Root, ErrNotFound)
	}
	return f, nil
}

// Exists reports whether the .sandbox/ directory is present (not a link).
func (f Folder) Exists() bool {
	fi, err := os.Lstat(f.Dir())
	return err == nil && fi.IsDir()
}
