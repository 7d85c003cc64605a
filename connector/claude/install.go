package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/install"
)

func init() { install.Register(Integration{}) }

// SettingsFile is the project settings file, relative to the project root.
var SettingsFile = filepath.Join(".claude", "settings.json")

// hookTimeout is the PreToolUse timeout installed: longer than any wait.
func hookTimeout() time.Duration { return hook.InstalledTimeout }

// Integration installs sandbox's hooks into .claude/settings.json.
type Integration struct{}

// Change is what Install recorded: the insertions it made.
type Change struct {
	File       string `json:"file"`
	Command    string `json:"command"`
	Created    bool   `json:"created,omitempty"`
	CreatedDir bool   `json:"created_dir,omitempty"`
	Sites      []site `json:"sites"`
}

// Name is the init flag.
func (Integration) Name() string { return "claude" }

// Command is the hook command line for the sandbox binary at exe.
func Command(exe, agent string) string { return ShellQuote(exe) + " hook " + agent }

// Install merges the hooks into the settings file.
func (Integration) Install(env install.Env, prev install.Change) (install.Change, error) {
	var old Change
	if len(prev) > 0 {
		if err := json.Unmarshal(prev, &old); err != nil {
			return nil, fmt.Errorf("claude: recorded change: %w", err)
		}
	}
	path := filepath.Join(env.Folder.Root, SettingsFile)
	src, perm, created, err := readOrEmpty(path)
	if err != nil {
		return nil, err
	}
	d, _, err := newDoc(path, src)
	if err != nil {
		return nil, err
	}
	cmd := Command(env.Exe, "claude")
	e := &hooksEdit{d: d, command: old.Command}
	if old.Command != "" && old.Command != cmd {
		if err := e.undo(old.Sites); err != nil {
			return nil, err
		}
		old.Sites = nil
	}
	e.command = cmd
	if err := e.add(Groups(cmd)); err != nil {
		return nil, err
	}
	if len(prev) > 0 && len(e.sites) == 0 && old.Command == cmd {
		return prev, nil
	}
	ch := Change{File: SettingsFile, Command: cmd, Created: old.Created || created,
		CreatedDir: old.CreatedDir, Sites: append(old.Sites, e.sites...)}
	if created {
		ch.CreatedDir, err = ensureDir(filepath.Dir(path))
		if err != nil {
			return nil, err
		}
	}
	if err := atomicfile.WriteFile(path, d.src, perm); err != nil {
		return nil, err
	}
	return json.Marshal(ch)
}

// Uninstall removes exactly what Install recorded.
func (Integration) Uninstall(env install.Env, c install.Change) error {
	var ch Change
	if err := json.Unmarshal(c, &ch); err != nil {
		return fmt.Errorf("claude: recorded change: %w", err)
	}
	path := filepath.Join(env.Folder.Root, ch.File)
	src, perm, missing, err := readOrEmpty(path)
	if err != nil || missing {
		return err
	}
	d, _, err := newDoc(path, src)
	if err != nil {
		return err
	}
	e := &hooksEdit{d: d, command: ch.Command}
	if err := e.undo(ch.Sites); err != nil {
		return err
	}
	if ch.Created && bytes.Equal(bytes.TrimSpace(d.src), []byte("{}")) {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("claude: %w", err)
		}
		if ch.CreatedDir {
			os.Remove(filepath.Dir(path)) // only if empty
		}
		return nil
	}
	if bytes.Equal(d.src, src) {
		return nil
	}
	return atomicfile.WriteFile(path, d.src, perm)
}

// readOrEmpty reads path; a missing file reads as "{}" with missing set.
func readOrEmpty(path string) (src []byte, perm fs.FileMode, missing bool, err error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []byte("{}\n"), 0o644, true, nil
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("settings: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("%s: not a regular file: %w", path, ErrMalformed)
	}
	src, err = os.ReadFile(path)
	if err != nil {
		return nil, 0, false, fmt.Errorf("settings: %w", err)
	}
	return src, fi.Mode().Perm(), false, nil
}

// ensureDir creates dir when missing and reports whether it did.
func ensureDir(dir string) (bool, error) {
	if _, err := os.Stat(dir); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("settings dir: %w", err)
	}
	return true, nil
}

// ShellQuote quotes s for a POSIX shell when it needs quoting.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-+:@%=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
