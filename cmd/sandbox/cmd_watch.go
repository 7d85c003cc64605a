package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/spf13/cobra"
)

type watchOptions struct {
	dir   dirFlag
	dirs  []string
	plain bool
	in    io.Reader
	out   io.Writer
	err   io.Writer
}

func newWatchCmd() *cobra.Command {
	opts := &watchOptions{}
	cmd := &cobra.Command{
		Use:   "watch [DIR...]",
		Short: "Approve or deny escalated requests in this terminal (one or many folders)",
		Long: `watch shows every pending request of one or more folders, escaped, with
its content hash, and runs what you approve in this process.

Keys: a approve once, A approve always (edit the proposed pattern), d deny
(with an optional reason for the model), s skip, p pending policy changes,
q quit. With --plain, or when stdin is not a terminal, type whole lines:
"a", "A [PATTERN]", "d [REASON]", "s", "p", "q".`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dirs = args
			opts.in, opts.out, opts.err = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runWatch(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	cmd.Flags().BoolVar(&opts.plain, "plain", false, "line mode for dumb terminals and scripts")
	return cmd
}

func runWatch(ctx context.Context, opts *watchOptions) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP, syscall.SIGTERM, os.Interrupt)
	defer stop()
	screen := &termWriter{w: opts.out}
	logger, closeLog := newWatchLogger(screen) // approver_watch_log.go
	defer closeLog()
	folders, err := watchFolders(opts)
	if err != nil {
		return err
	}
	s := &watchSession{
		out: screen, fd: -1, log: logger, plain: opts.plain,
		known: map[string]bool{}, skipped: map[string]bool{}, autoTried: map[string]bool{}, problems: map[string]bool{},
	}
	for _, f := range folders {
		wf, err := openWatchFolder(ctx, f, logger)
		if err != nil {
			return err
		}
		defer wf.env.Close()
		defer holdApprover(f, logger)()
		s.folders = append(s.folders, wf)
	}
	restore := s.startInput(opts, logger)
	defer restore()
	s.merge(ctx)
	s.banner()
	s.showInterrupted()
	s.checkPolicy()
	return s.run(ctx)
}

// watchFolders resolves the folders to watch: --dir and the arguments, or
// the nearest .sandbox/ upward.
func watchFolders(opts *watchOptions) ([]folder.Folder, error) {
	dirs := opts.dirs
	if opts.dir.dir != "" {
		dirs = append([]string{opts.dir.dir}, dirs...)
	}
	if len(dirs) == 0 {
		f, err := folder.Resolve("", nil)
		return []folder.Folder{f}, err
	}
	var out []folder.Folder
	seen := map[string]bool{}
	for _, d := range dirs {
		f, err := folder.Resolve(d, nil)
		if err != nil {
			return nil, err
		}
		if !seen[f.Root] {
			seen[f.Root] = true
			out = append(out, f)
		}
	}
	return out, nil
}

func openWatchFolder(ctx context.Context, f folder.Folder, logger *slog.Logger) (*watchFolder, error) {
	env, err := openApprover(f, approver.SurfaceWatch, logger)
	if err != nil {
		return nil, err
	}
	ch, err := env.q.Changes(ctx)
	if err != nil {
		env.Close()
		return nil, err
	}
	return &watchFolder{env: env, changes: ch}, nil
}

// startInput reads single keys when stdin is a terminal (and not
// --plain), whole lines otherwise. The returned function restores the
// terminal; it also runs on SIGHUP/SIGTERM/Ctrl-C through ctx.
func (s *watchSession) startInput(opts *watchOptions, logger *slog.Logger) (restore func()) {
	f, ok := opts.in.(*os.File)
	if !opts.plain && ok && isTerminal(int(f.Fd())) {
		if r, err := rawMode(int(f.Fd())); err == nil {
			s.fd = int(f.Fd())
			s.in = startInput(opts.in, true)
			return r
		} else {
			logger.Warn("single-key input unavailable; type whole lines", "err", err)
		}
	}
	s.plain = true
	s.in = startInput(opts.in, false)
	return func() {}
}

func (s *watchSession) banner() {
	for _, wf := range s.folders {
		s.out.printf("sandbox watch: %s (as %s)\n", wf.env.f.Root, wf.env.ap.Identity().User)
	}
	if !s.plain {
		s.out.printf("%s\n", fmt.Sprint("keys: ", watchKeys))
	}
}
