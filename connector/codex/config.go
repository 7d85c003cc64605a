package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/adapter/toolhook"
	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/install"
)

// ConfigFile is the project's Codex config, relative to the project root.
var ConfigFile = filepath.Join(".codex", "config.toml")

// The block sandbox appends is framed by these lines.
const (
	beginMarker = "# >>> sandbox hooks (added by `sandbox init --codex`; `sandbox uninstall` removes this block)"
	endMarker   = "# <<< sandbox hooks"
)

// ErrMalformed is a config file that is not valid TOML, or that the hooks
// cannot be merged into; nothing is changed.
var ErrMalformed = errors.New("malformed Codex config")

// Integration installs sandbox's hooks into .codex/config.toml.
type Integration struct{}

// Change is what Install recorded: the exact text it appended.
type Change struct {
	File       string `json:"file"`
	Command    string `json:"command"`
	Created    bool   `json:"created,omitempty"`
	CreatedDir bool   `json:"created_dir,omitempty"`
	Block      string `json:"block"`
}

// Install appends the hook tables to the config, once.
func (Integration) Install(env install.Env, prev install.Change) (install.Change, error) {
	var old Change
	if len(prev) > 0 {
		if err := json.Unmarshal(prev, &old); err != nil {
			return nil, fmt.Errorf("codex: recorded change: %w", err)
		}
	}
	path := filepath.Join(env.Folder.Root, ConfigFile)
	text, perm, created, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	cmd := adapter.Command(env.Exe, Name)
	if old.Block != "" && old.Command == cmd && strings.Contains(text, old.Block) {
		return prev, nil
	}
	text = removeBlock(text, old.Block)
	sep := separator(text)
	block := sep + Block(cmd)
	merged := text + block
	if err := validate(path, merged); err != nil {
		return nil, fmt.Errorf("adding sandbox's hooks would make it invalid: %w", err)
	}
	ch := Change{File: ConfigFile, Command: cmd, Created: old.Created || created, CreatedDir: old.CreatedDir, Block: block}
	if created {
		if ch.CreatedDir, err = ensureDir(filepath.Dir(path)); err != nil {
			return nil, err
		}
	}
	if err := atomicfile.WriteFile(path, []byte(merged), perm); err != nil {
		return nil, err
	}
	return json.Marshal(ch)
}

// Uninstall removes the block Install appended.
func (Integration) Uninstall(env install.Env, c install.Change) error {
	var ch Change
	if err := json.Unmarshal(c, &ch); err != nil {
		return fmt.Errorf("codex: recorded change: %w", err)
	}
	path := filepath.Join(env.Folder.Root, ch.File)
	text, perm, missing, err := readConfig(path)
	if err != nil || missing {
		return err
	}
	out := removeBlock(text, ch.Block)
	if ch.Created && strings.TrimSpace(out) == "" {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("codex: %w", err)
		}
		if ch.CreatedDir {
			os.Remove(filepath.Dir(path)) // only if empty
		}
		return nil
	}
	if out == text {
		return nil
	}
	return atomicfile.WriteFile(path, []byte(out), perm)
}

// Block is the TOML sandbox appends for command cmd.
func Block(cmd string) string {
	var b strings.Builder
	b.WriteString(beginMarker + "\n")
	pre := int(hook.InstalledTimeout.Seconds())
	for _, ev := range []struct {
		name, matcher string
		timeout       int
	}{{toolhook.PreToolUse, Matcher, pre}, {toolhook.PostToolUse, Matcher, 30}, {toolhook.SessionStart, "", 30}} {
		fmt.Fprintf(&b, "[[hooks.%s]]\n", ev.name)
		if ev.matcher != "" {
			fmt.Fprintf(&b, "matcher = %s\n", tomlString(ev.matcher))
		}
		fmt.Fprintf(&b, "\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = %d\n\n", ev.name, tomlString(cmd), ev.timeout)
	}
	return strings.TrimSuffix(b.String(), "\n") + endMarker + "\n"
}

// tomlString is a TOML basic string (JSON's escapes are valid TOML).
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// separator puts a blank line between the user's text and the block.
func separator(text string) string {
	switch {
	case text == "", strings.HasSuffix(text, "\n\n"):
		return ""
	case strings.HasSuffix(text, "\n"):
		return "\n"
	}
	return "\n\n"
}

// removeBlock takes out the exact recorded block, or failing that (the
// user edited it) everything from the begin marker to the end marker.
func removeBlock(text, block string) string {
	if block != "" {
		if i := strings.LastIndex(text, block); i >= 0 {
			return text[:i] + text[i+len(block):]
		}
	}
	i := strings.Index(text, beginMarker)
	j := strings.Index(text, endMarker)
	if i < 0 || j < i {
		return text
	}
	end := j + len(endMarker)
	if end < len(text) && text[end] == '\n' {
		end++
	}
	return text[:i] + text[end:]
}

// validate parses text as TOML; errors name the line.
func validate(path, text string) error {
	var v map[string]any
	err := toml.Unmarshal([]byte(text), &v)
	if err == nil {
		return nil
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return fmt.Errorf("%s:%d: %s: %w", path, row, de.Error(), ErrMalformed)
	}
	return fmt.Errorf("%s: %v: %w", path, err, ErrMalformed)
}

func readConfig(path string) (text string, perm fs.FileMode, missing bool, err error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0o644, true, nil
	}
	if err != nil {
		return "", 0, false, fmt.Errorf("codex config: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return "", 0, false, fmt.Errorf("%s: not a regular file: %w", path, ErrMalformed)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", 0, false, fmt.Errorf("codex config: %w", err)
	}
	if err := validate(path, string(data)); err != nil {
		return "", 0, false, err
	}
	return string(data), fi.Mode().Perm(), false, nil
}

func ensureDir(dir string) (bool, error) {
	if _, err := os.Stat(dir); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("codex config dir: %w", err)
	}
	return true, nil
}
