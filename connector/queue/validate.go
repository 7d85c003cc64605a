package queue

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// Version is the schema version of request and result files.
const Version = 1

// Size limits of a request (see docs/QUEUE.md). The whole file is capped
// at MaxFileSize, which also bounds stdin and write content.
const (
	MaxFileSize      = 1 << 20   // any file the queue reads
	MaxScript        = 256 << 10 // a shell script
	MaxPath          = 4096
	MaxArgs          = 4096
	MaxName          = 256 // shell, agent, session, tool, host, source
	MaxURL           = 8192
	MaxJustification = 8192
	MaxReasons       = 64
	MaxReason        = 2048
)

// Sources lists every accepted Request.Source.
var Sources = []string{
	SourceClaudeHook, SourceCodexHook, SourceCursorHook, SourceGeminiHook,
	SourceWindsurfHook, SourceMCP, SourceShim, SourceProxy, SourceCLI,
}

// Validate checks everything a request must satisfy before it is queued or
// after it is read: version, id format, a known kind with exactly its
// payload, an absolute cwd, a known source, sizes, UTF-8 text without NUL,
// a creation time, and Hash equal to ComputeHash. The error wraps
// ErrInvalid and names the field.
func (r *Request) Validate() error {
	if r.Version != Version {
		return invalid("v", "unsupported version %d", r.Version)
	}
	if !ValidID(r.ID) {
		return invalid("id", "must match ^[a-z0-9-]{1,64}$")
	}
	if err := r.validatePayload(); err != nil {
		return err
	}
	if err := absPath("cwd", r.Cwd); err != nil {
		return err
	}
	if !slices.Contains(Sources, r.Source) {
		return invalid("source", "unknown source %q", r.Source)
	}
	if err := r.validateText(); err != nil {
		return err
	}
	if r.Created.IsZero() {
		return invalid("created", "missing")
	}
	if r.Hash != r.ComputeHash() {
		return invalid("hash", "does not match the content")
	}
	return nil
}

func (r *Request) validateText() error {
	checks := []struct {
		field, s string
		max      int
	}{
		{"agent", r.Agent, MaxName},
		{"session", r.Session, MaxName},
		{"justification", r.Justification, MaxJustification},
	}
	for _, c := range checks {
		if err := text(c.field, c.s, c.max); err != nil {
			return err
		}
	}
	if len(r.PolicyReasons) > MaxReasons {
		return invalid("policy_reasons", "more than %d", MaxReasons)
	}
	for _, s := range r.PolicyReasons {
		if err := text("policy_reasons", s, MaxReason); err != nil {
			return err
		}
	}
	return nil
}

func (r *Request) validatePayload() error {
	set := map[Kind]bool{
		KindShell: r.Shell != nil, KindWrite: r.Write != nil, KindRead: r.Read != nil,
		KindNetwork: r.Network != nil, KindMCP: r.MCP != nil,
	}
	if _, ok := set[r.Kind]; !ok {
		return invalid("kind", "unknown kind %q", r.Kind)
	}
	for k, present := range set {
		if present != (k == r.Kind) {
			return invalid(string(k), "payload must be set exactly for kind %q", r.Kind)
		}
	}
	switch r.Kind {
	case KindShell:
		return r.Shell.validate()
	case KindWrite:
		return r.Write.validate()
	case KindRead:
		return absPath("read.path", r.Read.Path)
	case KindNetwork:
		return r.Network.validate()
	default:
		return r.MCP.validate()
	}
}

func (p *ShellPayload) validate() error {
	if (p.Script == "") == (len(p.Argv) == 0) {
		return invalid("shell", "exactly one of script and argv")
	}
	if p.Script != "" {
		if err := text("shell.shell", p.Shell, MaxName); err != nil {
			return err
		}
		if p.Shell == "" {
			return invalid("shell.shell", "a script needs its shell")
		}
		return text("shell.script", p.Script, MaxScript)
	}
	if p.Shell != "" {
		return invalid("shell.shell", "an argv runs without a shell")
	}
	if len(p.Argv) > MaxArgs {
		return invalid("shell.argv", "more than %d arguments", MaxArgs)
	}
	if p.Argv[0] == "" {
		return invalid("shell.argv", "empty program name")
	}
	for _, a := range p.Argv {
		if err := text("shell.argv", a, MaxScript); err != nil {
			return err
		}
	}
	return nil
}

func (p *WritePayload) validate() error {
	if err := absPath("write.path", p.Path); err != nil {
		return err
	}
	if (p.Content != nil) == (len(p.Edits) > 0) {
		return invalid("write", "exactly one of content and edits")
	}
	if p.Content != nil {
		return text("write.content", *p.Content, MaxFileSize)
	}
	for _, e := range p.Edits {
		if e.OldString == "" {
			return invalid("write.edits", "empty old_string")
		}
		if err := text("write.edits", e.OldString+e.NewString, MaxFileSize); err != nil {
			return err
		}
	}
	return nil
}

func (p *NetworkPayload) validate() error {
	if (p.URL == "") == (p.Host == "") {
		return invalid("network", "exactly one of url and host:port")
	}
	if p.URL != "" {
		if p.Port != 0 {
			return invalid("network.port", "only with host")
		}
		return text("network.url", p.URL, MaxURL)
	}
	if p.Port < 1 || p.Port > 65535 {
		return invalid("network.port", "out of range")
	}
	return text("network.host", p.Host, MaxName)
}

func (p *MCPPayload) validate() error {
	if p.Tool == "" {
		return invalid("mcp.tool", "missing")
	}
	if err := text("mcp.tool", p.Tool, MaxName); err != nil {
		return err
	}
	if len(p.Arguments) > 0 && !json.Valid(p.Arguments) {
		return invalid("mcp.arguments", "not JSON")
	}
	return nil
}

// text accepts valid UTF-8 of at most max bytes without NUL.
func text(field, s string, max int) error {
	switch {
	case len(s) > max:
		return invalid(field, "longer than %d bytes", max)
	case !utf8.ValidString(s):
		return invalid(field, "not valid UTF-8")
	case strings.IndexByte(s, 0) >= 0:
		return invalid(field, "contains NUL")
	}
	return nil
}

func absPath(field, p string) error {
	if err := text(field, p, MaxPath); err != nil {
		return err
	}
	if !filepath.IsAbs(p) {
		return invalid(field, "not an absolute path")
	}
	return nil
}
