// Package adapter is the contract every agent integration shares besides
// the hook core: the hook command line init writes, the error for an event
// that cannot be understood, reading one bounded JSON event, making an
// agent's paths absolute, opening the core for one event and closing it,
// and turning a panic into an error so that the hook fails closed.
package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/install"
)

// MaxInput caps one event (a file write carries the whole file).
const MaxInput = 32 << 20

// ErrBadInput is an event that cannot be read, decoded or understood:
// every agent's hook wraps this one value. Test with errors.Is.
var ErrBadInput = errors.New("bad hook input")

// Opener opens the hook core of the project that holds cwd; classify is
// set for the events that decide (a call before it runs), which need the
// policy.
type Opener func(ctx context.Context, cwd string, classify bool) (*hook.Core, error)

// Command is the hook command line, for the sandbox binary at exe, that
// init writes into an agent's configuration. For install.PortableExe it is
// the binary found on the agent's PATH, guarded so that a machine without
// it refuses every call with a message saying so (exit 2, the agents'
// "refuse") instead of letting the call through unchecked, which is what
// the shell's own "not found" (127) would do.
func Command(exe, agent string) string {
	if exe == install.PortableExe && runtime.GOOS != "windows" {
		return "command -v sandbox >/dev/null 2>&1 || { echo " + display.QuoteArg(missingBinary) +
			" >&2; exit 2; }; exec sandbox hook " + agent
	}
	return display.QuoteArg(exe) + " hook " + agent
}

// missingBinary is what the agent and its user read on every tool call of
// a machine where the committed hooks cannot find sandbox.
const missingBinary = "sandbox: this project checks every tool call with sandbox, " +
	"which is not installed or not on PATH here, so the call is refused (nothing runs unchecked). " +
	"Install sandbox, put it on PATH, run `sandbox doctor` in the project, then restart the agent."

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
func WithCore(ctx context.Context, open Opener, cwd string, classify bool, f func(*hook.Core) error) (err error) {
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
