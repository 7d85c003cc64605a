package watch

import (
	"context"
	"fmt"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/inbox"
	"github.com/sandbox-dev/sandbox/connector/policy"
)

// open starts watching m's folder.
func (s *watchSession) open(ctx context.Context, m inbox.Member) error {
	env, closeEnv, err := s.openEnv(m.Folder, s.log)
	if err != nil {
		if key := m.Folder.Root + "\x00" + err.Error(); s.inbox && !m.Tag.IsMain() && !s.problems[key] {
			s.problems[key] = true // said once; tried again on the slow tick
			s.log.Warn("cannot watch an agent's folder", "agent", m.Tag.Agent, "folder", m.Folder.Root, "err", err)
			s.out.printf("! agent %s: cannot watch %s: %v\n", display.EscapeLine(m.Tag.Agent), m.Folder.Root, err)
		}
		return err
	}
	fctx, cancel := context.WithCancel(ctx)
	ch, err := env.Approver.Queue().Changes(fctx)
	if err != nil {
		cancel()
		closeEnv()
		return err
	}
	s.follow(ch)
	s.folders = append(s.folders, &watchFolder{env: env, tag: m.Tag, close: func() { cancel(); closeEnv() }})
	return nil
}

func (s *watchSession) closeAll() {
	for _, wf := range s.folders {
		wf.close()
	}
}

// sync follows the inbox's members as the registry changed: agents
// spawned are watched from now on, removed ones no longer, and the tags
// (the agents' states) are the registry's.
func (s *watchSession) sync(ctx context.Context, ms []inbox.Member) {
	s.members = ms
	want := map[string]inbox.Member{}
	for _, m := range ms {
		want[m.Folder.Root] = m
	}
	kept := s.folders[:0]
	for _, wf := range s.folders {
		m, ok := want[wf.env.Folder.Root]
		if !ok && !wf.tag.IsMain() {
			s.out.printf("- agent %s left the inbox\n", display.EscapeLine(wf.tag.Agent))
			wf.close()
			continue
		}
		if ok {
			wf.tag = m.Tag
			delete(want, wf.env.Folder.Root)
		}
		kept = append(kept, wf)
	}
	s.folders = kept
	for _, m := range ms {
		if _, ok := want[m.Folder.Root]; !ok {
			continue
		}
		if s.open(ctx, m) == nil {
			s.out.printf("+ agent %s joined the inbox (%s)\n", display.EscapeLine(m.Tag.Agent), display.EscapeLine(m.Tag.Branch))
		}
	}
	s.refresh()
	if !s.plain && s.redraw != nil {
		s.redraw()
	}
}

// retryOpen opens, on the slow tick, the members whose folder could not
// be opened when they joined (a spawn still setting the worktree up): the
// registry's list may not change again to bring them back.
func (s *watchSession) retryOpen(ctx context.Context) {
	open := map[string]bool{}
	for _, wf := range s.folders {
		open[wf.env.Folder.Root] = true
	}
	for _, m := range s.members {
		if !open[m.Folder.Root] {
			s.sync(ctx, s.members)
			return
		}
	}
}

// tagged reports whether requests are shown with their agent: watching
// a repository's inbox that has agents.
func (s *watchSession) tagged() bool {
	if !s.inbox {
		return false
	}
	for _, wf := range s.folders {
		if !wf.tag.IsMain() {
			return true
		}
	}
	return false
}

// tagNote is what the banner says of a folder in an inbox.
func (s *watchSession) tagNote(wf *watchFolder) string {
	if !s.tagged() {
		return ""
	}
	return "  [" + tagLabel(wf.tag) + "]"
}

// tagLabel names a folder's agent and branch in a line.
func tagLabel(t inbox.Tag) string {
	if t.IsMain() || t.Agent == "" {
		return inbox.MainName
	}
	return "agent " + display.EscapeLine(t.Agent) + " · " + display.EscapeLine(t.Branch)
}

// agentsLine is every agent's state as the approver sees it, in a line:
// "agents: alice waiting (2) · bob running · carol done".
func (s *watchSession) agentsLine() string {
	var parts []string
	for _, wf := range s.folders {
		if wf.tag.IsMain() {
			continue
		}
		n := s.pendingIn(wf)
		st := inbox.Status(wf.tag.State, n)
		p := display.EscapeLine(wf.tag.Agent) + " " + st
		if n > 0 {
			p += fmt.Sprintf(" (%d)", n)
		}
		parts = append(parts, p)
	}
	return "agents: " + strings.Join(parts, " · ")
}

func (s *watchSession) pendingIn(wf *watchFolder) int {
	n := 0
	for _, it := range s.pending {
		if it.wf == wf {
			n++
		}
	}
	return n
}

// printAgents prints the agents line when it changed since last printed.
func (s *watchSession) printAgents() {
	if !s.tagged() {
		return
	}
	if l := s.agentsLine(); l != s.states {
		s.states = l
		s.out.printf("%s\n", l)
	}
}

// siblings are the other pending requests that ask what it asks in other
// folders (the same batch key), each decided in its own folder.
func (s *watchSession) siblings(it pendingItem) []pendingItem {
	if !s.tagged() {
		return nil
	}
	key := inbox.BatchKey(it.wf.env.Folder.Root, it.req)
	var out []pendingItem
	for _, p := range s.pending {
		if p.wf != it.wf && inbox.BatchKey(p.wf.env.Folder.Root, p.req) == key {
			out = append(out, p)
		}
	}
	return out
}

// batchNote says, under a request, in which other agents the same
// request waits.
func (s *watchSession) batchNote(it pendingItem) {
	sib := s.siblings(it)
	if len(sib) == 0 {
		return
	}
	names := []string{tagName(it.wf.tag)}
	for _, p := range sib {
		names = append(names, tagName(p.wf.tag))
	}
	s.out.printf("  same request pending in %d agents: %s   [b] approve it once in each\n", len(names), strings.Join(names, ", "))
}

func tagName(t inbox.Tag) string {
	if t.Agent == "" {
		return inbox.MainName
	}
	return display.EscapeLine(t.Agent)
}

// approveBatch approves it and every sibling once, each in its own folder
// with its own content hash (the batch key only says they ask the same
// thing). A sibling that would be refused or whose requester stopped
// waiting is left pending for its own decision.
func (s *watchSession) approveBatch(ctx context.Context, it pendingItem) error {
	sib := s.siblings(it)
	if err := s.approve(ctx, it, false, ""); err != nil {
		return err
	}
	for _, p := range sib {
		if !s.isPending(p.req.ID) {
			continue
		}
		rv := p.wf.env.Review.Review(p.req)
		if rv.Refused != "" || rv.Stale != "" {
			s.out.printf("  %s (%s) left pending: %s%s\n", p.req.ID, tagName(p.wf.tag), rv.Refused, rv.Stale)
			continue
		}
		s.out.printf("▶ same request in %s:\n", tagName(p.wf.tag))
		if err := s.approve(ctx, p, false, ""); err != nil {
			return err
		}
	}
	return nil
}

// rememberAll stores the remembered allows of an "always, for all
// agents" approval of it, made in its own folder, in MAIN's and every
// other agent's folder.
func (s *watchSession) rememberAll(it pendingItem, rules []policy.Remembered) {
	var targets []inbox.Target
	for _, wf := range s.folders {
		if wf != it.wf {
			targets = append(targets, inbox.Target{Folder: wf.env.Folder, Audit: wf.env.Audit})
		}
	}
	err := inbox.RememberAll(targets, it.wf.env.State, inbox.Shared{Rules: rules, From: it.wf.tag, RequestID: it.req.ID,
		Hash: it.req.Hash, Actor: "approver:" + approver.SurfaceWatch, User: it.wf.env.Approver.Identity().User})
	if err != nil {
		s.out.printf("! not remembered everywhere: %v\n", err)
	}
	s.out.printf("  remembered for all agents: %d more folder(s)\n", len(targets))
	clear(s.autoTried)
}
