// Package queue is the folder bus's escalation queue: writers stage a
// request in tmp/ and rename it into pending/, an approver claims it by
// renaming it into claimed/ and reads it once into memory, and the result
// lands in done/ID.json. It validates every file it reads, quarantines bad
// ones, joins duplicate requests, and turns requests whose approver died
// into `interrupted` without ever running them again.
package queue

import "time"

// Kind is what a request asks for.
type Kind string

const (
	KindShell   Kind = "shell"
	KindWrite   Kind = "write"
	KindRead    Kind = "read"
	KindNetwork Kind = "network"
	KindMCP     Kind = "mcp"
)

// Source names the actor that wrote a request.
const (
	SourceClaudeHook   = "claude-hook"
	SourceCodexHook    = "codex-hook"
	SourceCursorHook   = "cursor-hook"
	SourceGeminiHook   = "gemini-hook"
	SourceWindsurfHook = "windsurf-hook"
	SourceMCP          = "mcp"
	SourceShim         = "shim"
	SourceProxy        = "proxy"
	SourceCLI          = "cli"
)

// ShellPayload is a command: either Script for Shell (e.g. "bash"), or
// Argv run directly without a shell. Exactly one of Script and Argv is set.
// Stdin, when set, is fed to the command whole (at most 1 MiB).
type ShellPayload struct {
	Shell  string   `json:"shell,omitempty"`
	Script string   `json:"script,omitempty"`
	Argv   []string `json:"argv,omitempty"`
	Stdin  []byte   `json:"stdin,omitempty"`
}

// Edit is one replacement with Claude Code's semantics: OldString must
// match exactly once unless ReplaceAll.
type Edit struct {
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// WritePayload writes Content to Path (Content set), or applies Edits to
// the existing file at Path. Path is absolute.
type WritePayload struct {
	Path    string  `json:"path"`
	Content *string `json:"content,omitempty"`
	Edits   []Edit  `json:"edits,omitempty"`
}

// ReadPayload reads the file at Path (absolute).
type ReadPayload struct {
	Path string `json:"path"`
}

// NetworkPayload is a destination: a URL, or host and port.
type NetworkPayload struct {
	URL  string `json:"url,omitempty"`
	Host string `json:"host,omitempty"`
	Port int    `json:"port,omitempty"`
}

// MCPPayload is an MCP tool call.
type MCPPayload struct {
	Tool      string `json:"tool"`
	Arguments []byte `json:"arguments,omitempty"` // raw JSON
}

// Request is one escalation. Hash is the SHA-256 (hex) of the canonical
// encoding of the content (kind, payload, cwd): two requests with the same
// Hash and Session ask the same thing.
type Request struct {
	Version       int             `json:"v"`
	ID            string          `json:"id"`
	Kind          Kind            `json:"kind"`
	Shell         *ShellPayload   `json:"shell,omitempty"`
	Write         *WritePayload   `json:"write,omitempty"`
	Read          *ReadPayload    `json:"read,omitempty"`
	Network       *NetworkPayload `json:"network,omitempty"`
	MCP           *MCPPayload     `json:"mcp,omitempty"`
	Cwd           string          `json:"cwd"`
	Source        string          `json:"source"`
	Agent         string          `json:"agent,omitempty"`
	Session       string          `json:"session,omitempty"`
	Justification string          `json:"justification,omitempty"`
	PolicyReasons []string        `json:"policy_reasons,omitempty"`
	Created       time.Time       `json:"created"`
	Hash          string          `json:"hash"`
}

// Decision is how a request ended.
type Decision string

const (
	Approved    Decision = "approved"    // approved and executed (see ExitCode)
	Denied      Decision = "denied"      // a human or rule said no
	Withdrawn   Decision = "withdrawn"   // the waiter gave up while pending
	Expired     Decision = "expired"     // nobody decided in time
	Interrupted Decision = "interrupted" // the approver died after claiming
	Failed      Decision = "failed"      // approved but could not be executed
)

// Approver is who decided and through which surface (watch, serve, cli,
// ci, remembered).
type Approver struct {
	User    string `json:"user"` // user@host
	Surface string `json:"surface"`
}

// Result is done/ID.json.
type Result struct {
	Version         int       `json:"v"`
	ID              string    `json:"id"`
	RequestHash     string    `json:"request_hash"`
	Decision        Decision  `json:"decision"`
	Approver        Approver  `json:"approver"`
	Reason          string    `json:"reason,omitempty"` // the human's words, or why it failed
	Always          string    `json:"always,omitempty"` // the remembered pattern, if any
	Decided         time.Time `json:"decided"`
	Started         time.Time `json:"started,omitzero"`
	Finished        time.Time `json:"finished,omitzero"`
	ExitCode        *int      `json:"exit_code,omitempty"`
	Signal          string    `json:"signal,omitempty"`
	Stdout          string    `json:"stdout,omitempty"` // capped at 64 KiB
	Stderr          string    `json:"stderr,omitempty"` // capped at 64 KiB
	StdoutTruncated bool      `json:"stdout_truncated,omitempty"`
	StderrTruncated bool      `json:"stderr_truncated,omitempty"`
	DurationMS      int64     `json:"duration_ms"`
	LogPath         string    `json:"log_path,omitempty"` // results/ID.log
	WrittenHash     string    `json:"written_hash,omitempty"`
	// Jail says where an approved command ran: its grant jail and what
	// that granted beyond the project jail, or that it ran without a jail
	// and why (broker.Describe).
	Jail []string `json:"jail,omitempty"`

	// Filled in by (*Claim).Complete from the claimed request, so that a
	// finished request can be listed and joined without its request file.
	Kind      Kind      `json:"kind,omitempty"`
	Summary   string    `json:"summary,omitempty"` // Summarize(request), escaped
	Session   string    `json:"session,omitempty"`
	Requested time.Time `json:"requested,omitzero"` // the request's Created

	// MAC authenticates the result (see WithKey); empty when written by
	// a queue without the per-user key.
	MAC string `json:"mac,omitempty"`
}
