package policy

import "sync"

// jailOnce holds the jailed twin of an unjailed engine, made on first
// use: a long-running approver asks for it on every request.
type jailOnce struct {
	once sync.Once
	e    *Engine
}

func newSets() map[Trigger]*lazyIndex {
	return map[Trigger]*lazyIndex{Shell: {}, Write: {}, Read: {}, Network: {}, MCP: {}}
}

// ForJail returns the engine that decides for commands that will run in
// the project jail: the same policy, with the shell rules marked
// `jailed: true` counting too. The jail contains what a classifier
// mistake could do there (writes outside the project, secrets, the
// network without the proxy), so the policy may allow more. It shares
// nothing mutable with e: each has its own lazily built indexes.
func (e *Engine) ForJail() *Engine {
	if e.jailed {
		return e
	}
	e.jail.once.Do(func() {
		j := *e
		j.jailed, j.sets, j.jail = true, newSets(), nil // a jailed engine is its own ForJail
		e.jail.e = &j
	})
	return e.jail.e
}

// Jailed reports whether e decides for commands that run in the project
// jail (an engine from ForJail).
func (e *Engine) Jailed() bool { return e.jailed }

// counts reports whether a rule applies on this engine: a jailed rule
// only on a jailed engine.
func (e *Engine) counts(jailedRule bool) bool { return e.jailed || !jailedRule }

// stampTo marks a decision, and each of its parts, with whether the
// command runs jailed. Deferred first by every decision method, so that
// it runs last (after recoverTo).
func (e *Engine) stampTo(d *Decision) {
	if !e.jailed {
		return
	}
	d.Jailed = true
	for i := range d.Parts {
		d.Parts[i].Jailed = true
	}
}
