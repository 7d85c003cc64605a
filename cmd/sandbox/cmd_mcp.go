package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/sandbox-dev/sandbox/connector/mcpserver"
	"github.com/spf13/cobra"
)

type mcpOptions struct {
	dirFlag
	in     io.Reader
	out    io.Writer
	errOut io.Writer
}

func newMCPCmd() *cobra.Command {
	opts := &mcpOptions{}
	cmd := &cobra.Command{
		Use:   "mcp [DIR]",
		Short: "Serve sandbox's MCP tools on stdin and stdout (started by the agent; `sandbox init --mcp` registers it)",
		Long: "A stdio MCP server for one project folder: run_privileged (classify a command with the policy;\n" +
			"run it, refuse it, or ask a human and return its real output), check_request and sandbox_status.\n" +
			"Logs go to stderr (debug level with SANDBOX_MCP_DEBUG=1).",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.in, opts.out, opts.errOut = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runMCP(cmd.Context(), opts, args)
		},
	}
	opts.bind(cmd)
	return cmd
}

func runMCP(ctx context.Context, opts *mcpOptions, args []string) error {
	f, err := opts.resolve(args)
	if err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		// The server lives as long as the agent's session; a tighter heap
		// goal keeps it about 2 MB smaller at no measurable cost per call.
		debug.SetGCPercent(50)
	}
	level := slog.LevelWarn
	if os.Getenv("SANDBOX_MCP_DEBUG") != "" {
		level = slog.LevelDebug
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("locating the sandbox binary (allowed commands run in its jail): %w", err)
	}
	s, err := mcpserver.New(mcpserver.Options{Folder: f, Version: buildVersion(), Exe: exe, ProbeJail: probeJail,
		Log: slog.New(slog.NewTextHandler(opts.errOut, &slog.HandlerOptions{Level: level}))})
	if err != nil {
		return err
	}
	return s.Serve(ctx, opts.in, opts.out)
}

// buildVersion is the module version the binary was built from.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
