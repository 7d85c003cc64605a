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
func WriteFileVia(stagingDir, path string, data []byte, perm os.FileMode) (err error) {
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
	if err = f.Sync(); err != nil {
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("atomic write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomic write %s: %w", path, err)
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
