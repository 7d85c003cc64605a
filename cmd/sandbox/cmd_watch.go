package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/connector/watch"
	"github.com/spf13/cobra"
)

type watchOptions struct {
	dir   dirFlag
	dirs  []string
	plain bool
	nats  natsFlags
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
its content hash, and runs what you approve in this process. Without a
folder named it watches the repository's inbox: its own folder and every
agent's worktree (sandbox agents), each request tagged with its agent.

Keys: a approve once, A approve always (edit the proposed pattern), d deny
(with an optional reason for the model), s skip, p pending policy changes,
q quit. In an inbox with agents: L approve always for all agents, b
approve the same request once in every agent it waits in. With --plain, or when stdin is not a terminal, type whole lines:
"a", "A [PATTERN]", "L [PATTERN]", "b", "d [REASON]", "s", "p", "q".

With --nats (team mode, docs/TEAM.md) it watches the requests of every
machine the credentials reach, grouped by machine and project, and signs
each decision with your approver key (sandbox keys new); an approval runs
on its machine, its output shown here as it runs ([b] stops waiting for a
slow or offline machine: the decision stays sent).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dirs = args
			opts.in, opts.out, opts.err = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runWatch(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	cmd.Flags().BoolVar(&opts.plain, "plain", false, "line mode for dumb terminals and scripts")
	opts.nats.bind(cmd, "watch every machine's requests (team mode, docs/TEAM.md)")
	return cmd
}

func runWatch(ctx context.Context, opts *watchOptions) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP, syscall.SIGTERM, os.Interrupt)
	defer stop()
	if opts.nats.url != "" {
		if len(opts.dirs) > 0 || opts.dir.dir != "" {
			return usageErrorf("watch --nats watches NATS, not folders: leave out the folders")
		}
		return runWatchNATS(ctx, &opts.nats, opts)
	}
	folders, err := watchFolders(opts)
	if err != nil {
		return err
	}
	cfg := watch.Config{Folders: folders, Open: openWatchFolder, In: opts.in, Out: opts.out, Plain: opts.plain}
	if opts.inbox() {
		st, err := userstate.Open(true)
		if err != nil {
			return err
		}
		if cfg.Inbox, err = inboxSource(folders[0], st); err != nil {
			return err
		}
		cfg.Notify = inboxNotifier(folders[0], st, slog.New(slog.DiscardHandler))
	}
	return watch.Run(ctx, cfg)
}

// inbox reports whether the repository's inbox is watched: MAIN and every
// registered agent's worktree, as `watch` and `serve` do without a folder
// named.
func (o *watchOptions) inbox() bool { return o.dir.dir == "" && len(o.dirs) == 0 }

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

// openWatchFolder opens f's approver for watch and marks f as watched
// until the returned function runs.
func openWatchFolder(f folder.Folder, logger *slog.Logger) (*watch.Folder, func(), error) {
	env, err := openApprover(f, approver.SurfaceWatch, logger)
	if err != nil {
		return nil, nil, err
	}
	release := holdApprover(f, logger)
	return &watch.Folder{Folder: env.f, State: env.st, Approver: env.ap, Audit: env.audit, Review: env.src},
		func() { release(); env.Close() }, nil
}
