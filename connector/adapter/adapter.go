// Package adapter holds what the hook adapters of Cursor, Gemini CLI and
// Windsurf share besides the hook core: reading one bounded JSON event,
// making an agent's paths absolute, opening the core for one event and
// closing it, and turning a panic into an error so that the adapter fails
// closed.
package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/claude"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/install"
)

// MaxInput caps one event (a file write carries the whole file).
const MaxInput = claude.MaxInput

// ErrBadInput is an event that cannot be read, decoded or understood.
var ErrBadInput = errors.New("bad hook input")

// ReadJSON decodes one event from r into v, refusing oversize or
// malformed input.
func ReadJSON(r io.Reader, v any) error {
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return fmt.Errorf("reading the hook event from stdin: %w", err)
	}
	if len(data) > MaxInput {
		return fmt.Errorf("hook event larger than %d bytes: %w", MaxInput, ErrBadInput)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("hook event is not valid JSON (%v): %w", err, ErrBadInput)
	}
	return nil
}

// WriteJSON writes v on one line, without HTML escaping.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing the hook answer: %w", err)
	}
	return nil
}

// Abs makes p absolute against cwd (or the home directory for ~/) and
// cleans it; an empty p stays empty.
func Abs(cwd, p string) string {
	if p == "" {
		return ""
	}
	if home, err := os.UserHomeDir(); err == nil && (p == "~" || strings.HasPrefix(p, "~/")) {
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// Dir is the first of dirs that is an absolute path, else the current
// directory: where the project folder is looked for.
func Dir(dirs ...string) (string, error) {
	for _, d := range dirs {
		if d != "" && filepath.IsAbs(d) {
			return filepath.Clean(d), nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("hook event names no directory: %w", err)
	}
	return wd, nil
}

// WithCore opens the core for cwd, runs f on it and closes it. A panic
// in f becomes an error.
func WithCore(ctx context.Context, open claude.Opener, cwd string, classify bool, f func(*hook.Core) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bug: panic in sandbox hook: %v", r)
		}
	}()
	core, err := open(ctx, cwd, classify)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := core.Close(); cerr != nil {
			core.Logger().Warn("closing", "err", cerr)
		}
	}()
	return f(core)
}

// FirstLine is the first line of s, for one-line summaries.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// MCPName is the full name of tool on an MCP server, as policies spell
// it (mcp__server__tool).
func MCPName(server, tool string) string {
	if strings.HasPrefix(tool, "mcp__") {
		return tool
	}
	if server == "" {
		server = "unknown"
	}
	return "mcp__" + server + "__" + tool
}

// MCPInstalled reports whether any of the named integrations is in the
// folder's install manifest (for the session brief's MCP line).
func MCPInstalled(core *hook.Core, names ...string) bool {
	m, err := install.LoadManifest(core.Folder)
	if err != nil {
		return false
	}
	for _, n := range names {
		if _, ok := m[n]; ok {
			return true
		}
	}
	return false
}
