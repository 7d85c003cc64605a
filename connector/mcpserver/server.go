// Package mcpserver is sandbox's MCP server (`sandbox mcp`): a stdio
// server with three tools through which any MCP client asks for
// privileged work in one project folder. run_privileged classifies a
// command with the folder's policy and runs it (allow), refuses it
// (deny), or escalates it to a human on the folder bus, waits, reporting
// progress, and returns the approved command's real output as an
// ordinary tool result; check_request returns a request's outcome later;
// sandbox_status describes the folder. It shares the hook core's policy,
// queue and audit wiring; only the MCP wire format is its own.
package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Wait bounds of run_privileged and check_request, in seconds.
const (
	DefaultWaitSeconds = 120
	MaxWaitSeconds     = 3600
)

// ClientTimeout is the tool-call timeout installed in clients' configs:
// longer than the longest wait the server allows itself.
const ClientTimeout = (MaxWaitSeconds + 60) * time.Second

// JailVar is the variable `sandbox run` sets inside the jail.
const JailVar = "SANDBOX_JAIL"

// Opener opens the hook core of the folder for one tool call.
type Opener func(ctx context.Context) (*hook.Core, error)

// Options configure a Server.
type Options struct {
	Folder folder.Folder
	// Open opens the hook core; nil means the live folder (policy, queue
	// and audit log on disk).
	Open Opener
	// Version is reported to clients at initialize.
	Version string
	// ProgressEvery is the interval of progress notifications while a
	// request waits for a human (default 5s).
	ProgressEvery time.Duration
	// Environ is the environment allowed commands are scrubbed from
	// (default os.Environ()); its SANDBOX_JAIL says whether the server
	// runs jailed.
	Environ []string
	// Exe is the sandbox binary: in connector mode allowed commands run in
	// its project jail (`Exe run ...`, as the hook rewrites them). Empty
	// runs them with the server's rights (tests, embedders).
	Exe string
	// ProbeJail is live.Options.ProbeJail.
	ProbeJail func() userstate.JailProbe
	Log       *slog.Logger
}

// Server is one MCP server for one folder.
type Server struct {
	opts     Options
	log      *slog.Logger
	tools    []Tool
	handlers map[string]handler
	session  string // joins identical requests asked again by this client
	status   *statusCache
}

// handler answers one tool call.
type handler func(ctx context.Context, p *callParams) (*ToolResult, error)

// New builds the server and registers its tools.
func New(o Options) (*Server, error) {
	if o.Folder.Root == "" {
		return nil, fmt.Errorf("mcp server: %w", ErrNoFolder)
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 5 * time.Second
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{opts: o, log: log, session: newSession(), status: &statusCache{}}
	if s.opts.Open == nil {
		s.opts.Open = s.openLive
	}
	s.addTools()
	return s, nil
}

// maxConcurrentCalls bounds the tool calls served at once (each waiting
// request holds one); sandbox_status stays answerable beside them.
const maxConcurrentCalls = 16

const instructions = "sandbox guards this project: privileged commands go to a human. " +
	"Use run_privileged to run a command that needs approval (give a clear reason); its result is the command's real output. " +
	"If it comes back pending, call check_request with the id later. sandbox_status shows the policy and what is pending."

func newSession() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "mcp-" + hex.EncodeToString(b)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
