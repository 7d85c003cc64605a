package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook/live"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/shims"
	"github.com/spf13/cobra"
)

// defaultRequestWait is how long `sandbox request` waits for a human.
const defaultRequestWait = 10 * time.Minute

type requestOptions struct {
	dir     dirFlag
	wait    time.Duration
	reason  string
	script  string
	shell   string
	stdin   bool
	argv    []string
	in      io.Reader
	out, er io.Writer
}

func newRequestCmd() *cobra.Command {
	opts := &requestOptions{}
	cmd := &cobra.Command{
		Use:   "request [--wait DUR] [--reason TEXT] [--stdin] (--script TEXT | -- ARGV...)",
		Short: "Ask a human to run a command, then behave like that command",
		Long: `request submits an escalation from the command line and waits for a human
(sandbox watch, sandbox approve). The approved command's output is streamed
as it runs (stdout to stdout, stderr to stderr) and request exits with the
command's exit code: 126 when denied (by a human or by the policy), 124
when nobody decided within --wait (the request is then withdrawn), 125 when
it could not run. Ctrl-C withdraws a request still pending.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.argv = args
			opts.in, opts.out, opts.er = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runRequest(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	fl := cmd.Flags()
	fl.DurationVar(&opts.wait, "wait", defaultRequestWait, "how long to wait for a decision")
	fl.StringVar(&opts.reason, "reason", "", "why the command is needed (shown to the human)")
	fl.StringVar(&opts.script, "script", "", "a shell script to run")
	fl.StringVar(&opts.shell, "shell", "bash", "the shell the script is written for")
	fl.BoolVar(&opts.stdin, "stdin", false, "feed this command's standard input to it (at most 1 MiB)")
	return cmd
}

func runRequest(ctx context.Context, opts *requestOptions) error {
	if (opts.script == "") == (len(opts.argv) == 0) {
		return usageErrorf("give exactly one of --script TEXT and -- ARGV...")
	}
	f, err := opts.dir.resolve(nil)
	if err != nil {
		return err
	}
	req, err := buildRequest(f, opts)
	if err != nil {
		return err
	}
	if live.Jailed() {
		// Inside sandbox run's jail the per-user state (the signed policy,
		// the audit log's key) is out of reach: the request goes onto the
		// bus as a shim's does, and the trusted side decides it again and
		// audits it (approver.Assess).
		label := opts.argv
		if opts.script != "" {
			label = []string{opts.shell, "-c", opts.script}
		}
		if code := shims.Submit(f, req, label); code != 0 {
			return exitWith(code)
		}
		return nil
	}
	v, err := classify(f, req, stderrLogger(opts.er))
	if err != nil {
		return err
	}
	if v.deny {
		return &exitError{code: exitDenied, msg: "denied by the policy: " + strings.Join(v.reasons, "; ")}
	}
	req.PolicyReasons = v.reasons
	return submitAndFollow(ctx, f, req, opts)
}

// submitAudited submits req, audited (fail closed: no record, no
// request), and hands the open queue, the request's id and whether it
// joined an identical one to then.
func submitAudited(ctx context.Context, f folder.Folder, req *queue.Request, er io.Writer,
	then func(q *queue.Queue, id string, joined bool) error) error {
	logger := stderrLogger(er)
	lg, err := openRequestAudit(f, logger)
	if err != nil {
		return err
	}
	defer lg.Close()
	q, err := queue.Open(f, queue.WithLogger(logger), userKey())
	if err != nil {
		return err
	}
	defer q.Close()
	id, joined, err := q.Submit(ctx, req)
	if err != nil {
		return err
	}
	if err := recordCreated(lg, req, id, joined); err != nil {
		return unaudited(q, id, joined, err)
	}
	return then(q, id, joined)
}

// submitAndFollow submits req, audited, and follows it to its end.
func submitAndFollow(ctx context.Context, f folder.Folder, req *queue.Request, opts *requestOptions) error {
	return submitAudited(ctx, f, req, opts.er, func(q *queue.Queue, id string, joined bool) error {
		return follow(ctx, f, q, id, joined, opts)
	})
}

// follow waits for the request id's decision and its outcome.
func follow(ctx context.Context, f folder.Folder, q *queue.Queue, id string, joined bool, opts *requestOptions) error {
	verb := "waiting"
	if joined {
		verb = "joined an identical request; waiting"
	}
	fmt.Fprintf(opts.er, "sandbox: request %s %s for approval (sandbox watch, or sandbox approve %s)\n", id, verb, id)
	warnIfNobodyWatches(opts.er, f)
	wctx, cancel := context.WithTimeout(ctx, opts.wait)
	defer cancel()
	res, err := approver.Follow(wctx, q, id, opts.out, opts.er, nil)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return &exitError{code: exitTimeout, msg: fmt.Sprintf("nobody decided request %s within %s; withdrawn", id, opts.wait)}
	}
	return waitOutcome(ctx, id, res, err)
}

// buildRequest makes the request from the flags; cwd is the current
// directory when inside the project, else its root.
func buildRequest(f folder.Folder, opts *requestOptions) (*queue.Request, error) {
	p := &queue.ShellPayload{Argv: opts.argv}
	if opts.script != "" {
		p = &queue.ShellPayload{Shell: opts.shell, Script: opts.script}
	}
	if opts.stdin {
		data, err := io.ReadAll(io.LimitReader(opts.in, queue.MaxFileSize/2+1))
		if err != nil {
			return nil, fmt.Errorf("reading stdin: %w", err)
		}
		if len(data) > queue.MaxFileSize/2 {
			return nil, usageErrorf("--stdin: more than %d bytes", queue.MaxFileSize/2)
		}
		p.Stdin = data
	}
	return &queue.Request{
		Kind: queue.KindShell, Shell: p, Cwd: projectCwd(f), Source: queue.SourceCLI,
		Agent: "cli", Session: cliSession(), Justification: opts.reason,
	}, nil
}

// projectCwd is the current directory, symlinks resolved, when it is in
// the project, else the project root: where a request runs and where
// sandbox run starts its command. Containment is by whole names
// (folder.Within), never a string prefix.
func projectCwd(f folder.Folder) string {
	wd, err := os.Getwd()
	if err != nil {
		return f.Root
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	if !folder.Within(f.Root, wd) {
		return f.Root
	}
	return wd
}

// cliSession groups the requests of one shell session in watch: the
// SANDBOX_SESSION variable, else the parent process.
func cliSession() string {
	if s := os.Getenv("SANDBOX_SESSION"); s != "" && len(s) <= 64 {
		return s
	}
	return fmt.Sprintf("cli-%d", os.Getppid())
}
