package main

import (
	"errors"
	"log/slog"
	"os"

	agentreg "github.com/sandbox-dev/sandbox/agents"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/inbox"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// inboxSource is the inbox of main (`sandbox watch` and `sandbox serve`
// without arguments): main's folder, then every registered agent's
// worktree, read from the registry each time. A record whose worktree
// is not main/.sandbox/worktrees/NAME (or is reached through a link) is
// left out and logged, once per record.
func inboxSource(main folder.Folder, st *userstate.State) (inbox.Source, error) {
	reg, err := agentreg.Open(main, st.Dir)
	if err != nil {
		return nil, err
	}
	warned := map[string]bool{}
	return func(log *slog.Logger) ([]inbox.Member, error) {
		recs, err := reg.List()
		if err != nil && len(recs) == 0 {
			return nil, err
		}
		if err != nil {
			log.Warn("some agent records are unreadable", "err", err)
		}
		out := []inbox.Member{{Folder: main, Tag: inbox.Tag{Agent: inbox.MainName}}}
		for _, r := range recs {
			f, err := inbox.AgentFolder(main, r.Name, r.Worktree)
			if err != nil {
				if key := r.Name + "\x00" + r.Worktree + "\x00" + err.Error(); !warned[key] {
					warned[key] = true
					log.Warn("agent left out of the inbox", "agent", r.Name, "worktree", r.Worktree, "err", err)
				}
				continue
			}
			out = append(out, inbox.Member{Folder: f, Tag: inbox.Tag{Agent: r.Name, Branch: r.Branch,
				Worktree: f.Root, State: string(r.State)}})
		}
		return out, nil
	}, nil
}

// inboxNotifier tells the human when an agent starts waiting: a desktop
// notification where notify-send exists and a desktop session does (a
// serve on a headless machine would log a failure each time), and the
// accepted policy's agents.notify.webhook of main when it names one.
func inboxNotifier(main folder.Folder, st *userstate.State, log *slog.Logger) *inbox.Notifier {
	desktop := os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "" || os.Getenv("DBUS_SESSION_BUS_ADDRESS") != ""
	n := &inbox.Notifier{Desktop: desktop}
	e, _, err := store.Load(main, st, log)
	switch {
	case err != nil && !errors.Is(err, store.ErrNotAccepted):
		log.Warn("no webhook: the policy cannot be loaded", "err", err)
	case e != nil:
		n.Webhook = e.Policy().Agents.Webhook
	}
	return n
}
