// Package atomicfile writes files the way the folder bus requires: create in
// a temporary file beside (or in a given staging directory), fsync, rename
// into place, fsync the directory. No reader ever sees a partial file.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// WriteFile atomically replaces path with data. The temporary file is
// created in the same directory, so the rename never crosses devices.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return WriteFileVia(filepath.Dir(path), path, data, perm)
}

// WriteFileVia stages data in stagingDir (which must be on the same file
// system as path) and renames it to path. An existing path is replaced; a
// symlink at path is replaced, never followed.
func WriteFileVia(stagingDir, path string, data []byte, perm os.FileMode) error {
	return write(stagingDir, path, data, perm, true)
}

// Replace is WriteFile without the syncs, for a file derived from others
// that its writer makes again when it is missing or differs (a cache): a
// reader still never sees it partial, but after a crash it may be empty.
// A sync right after a large write elsewhere on the file system (a git
// checkout) waits for that write's journal commit.
func Replace(path string, data []byte, perm os.FileMode) error {
	return write(filepath.Dir(path), path, data, perm, false)
}

func write(stagingDir, path string, data []byte, perm os.FileMode, sync bool) (err error) {
	f, err := os.CreateTemp(stagingDir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil && runtime.GOOS != "windows" {
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	if sync {
		if err = f.Sync(); err != nil {
			return fmt.Errorf("atomic write %s: %w", path, err)
		}
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	if !sync {
		return nil
	}
	return SyncDir(filepath.Dir(path))
}

// SyncDir fsyncs a directory so that a rename into it survives a crash.
// It is a no-op where directories cannot be synced (Windows).
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
