// Package userstate owns the per-user state directory that lives outside
// every project: the HMAC key, and per folder the accepted-policy record,
// the audit anchor and the remembered decisions' signatures. The jail can
// never read it.
package userstate

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// KeySize is the length of the per-user HMAC key in bytes.
const KeySize = 32

// ErrBadKey is returned when the key file exists but is not usable.
var ErrBadKey = errors.New("per-user key is unreadable, wrong size or too open")

// State is an opened per-user state directory.
type State struct {
	Dir string // absolute; mode 0700
	Key []byte // KeySize bytes from Dir/key (mode 0600)
}

// DefaultDir is $XDG_STATE_HOME/sandbox, else ~/.local/state/sandbox;
// %LOCALAPPDATA%\sandbox on Windows.
func DefaultDir() (string, error) {
	if runtime.GOOS == "windows" {
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "sandbox"), nil
		}
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "sandbox"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("per-user state dir: %w", err)
	}
	return filepath.Join(home, ".local", "state", "sandbox"), nil
}

// Open opens the default per-user state directory, creating it and its key
// when create is true.
func Open(create bool) (*State, error) {
	dir, err := DefaultDir()
	if err != nil {
		return nil, err
	}
	return OpenDir(dir, create)
}

// OpenDir opens the state directory dir, creating it (0700) and a random
// key (0600) when create is true and they are missing.
func OpenDir(dir string, create bool) (*State, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("per-user state dir: %w", err)
	}
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("per-user state dir: %w", err)
		}
	}
	key, err := readKey(filepath.Join(dir, "key"))
	if errors.Is(err, os.ErrNotExist) && create {
		key, err = createKey(filepath.Join(dir, "key"))
	}
	if err != nil {
		return nil, err
	}
	return &State{Dir: dir, Key: key}, nil
}

func readKey(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("per-user key: %w", err)
	}
	if !fi.Mode().IsRegular() || (runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0) {
		return nil, fmt.Errorf("%s: %w", path, ErrBadKey)
	}
	key, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("per-user key: %w", err)
	}
	if len(key) != KeySize {
		return nil, fmt.Errorf("%s: %w", path, ErrBadKey)
	}
	return key, nil
}

func createKey(path string) ([]byte, error) {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("per-user key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return readKey(path) // another process won the race
	}
	if err != nil {
		return nil, fmt.Errorf("per-user key: %w", err)
	}
	_, werr := f.Write(key)
	serr := f.Sync()
	if cerr := f.Close(); werr == nil && serr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = serr
	}
	if werr != nil {
		return nil, fmt.Errorf("per-user key: %w", werr)
	}
	return key, nil
}

// FolderDir is the per-folder state directory for the project whose
// absolute, symlink-resolved root is root. It is created (0700) on demand.
func (s *State) FolderDir(root string) (string, error) {
	dir := s.FolderPath(root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("per-folder state: %w", err)
	}
	return dir, nil
}

// FolderPath is where FolderDir keeps root's state, without creating it.
func (s *State) FolderPath(root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(s.Dir, "folders", hex.EncodeToString(sum[:12]))
}
