package policy

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/shell"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Status says which policy an engine enforces.
type Status int

const (
	// StatusAccepted: policy.yaml is the accepted policy.
	StatusAccepted Status = iota + 1
	// StatusPending: policy.yaml changed (or broke) since it was accepted;
	// the engine enforces the accepted copy.
	StatusPending
	// StatusNothingAccepted: no valid accepted policy; everything that the
	// built-in rules do not deny escalates.
	StatusNothingAccepted
)

func (s Status) String() string {
	switch s {
	case StatusAccepted:
		return "accepted"
	case StatusPending:
		return "pending change"
	case StatusNothingAccepted:
		return "nothing accepted"
	}
	return "invalid"
}

// Options are what New needs to know besides the policy.
type Options struct {
	// Home is the user's home directory ("~" in patterns and paths).
	// Empty: os.UserHomeDir.
	Home string
	// StateDir is the per-user state directory, which no read, write or
	// shell word may reach. Empty: userstate.DefaultDir.
	StateDir string
	// Remembered decisions to apply (already verified).
	Remembered []Remembered
	// CaseInsensitive reports whether the file system holding the project
	// compares names without case. Nil: detected for the project root,
	// and assumed on darwin and windows. Deny and escalate rules always
	// compare names folded, whatever this says.
	CaseInsensitive func(root string) bool
	// Logger receives internal errors; nil discards.
	Logger *slog.Logger
	// Status is what Engine.Status reports for a non-nil policy (the
	// store's Load says StatusPending for an accepted copy that
	// policy.yaml no longer matches). Zero: StatusAccepted. A nil policy
	// is always StatusNothingAccepted.
	Status Status
}

// Engine classifies actions for one project folder. It is immutable and
// safe for concurrent use.
type Engine struct {
	log       *slog.Logger
	root      string
	rootSegs  []string // the project root's segments
	stateSegs []string // the per-user state dir's folded segments
	foldAllow bool     // allow rules compare folded names too
	res       *resolver
	policy    *Policy
	status    Status
	homeSegs  []string               // the home directory's segments (~ in patterns)
	sets      map[Trigger]*lazyIndex // every trigger's index, built on first use
	shellOpts shell.Options
	opts      Options // as New received them, for CI
	jailed    bool    // decides for commands that run in the project jail
	jail      *jailOnce
}

// New builds an engine for the project at root (absolute, resolved) that
// enforces p; a nil p is "nothing accepted": only built-in rules, and
// everything else escalates.
func New(root string, p *Policy, o Options) (*Engine, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("policy engine: root %q is not absolute", root)
	}
	home, state := o.Home, o.StateDir
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home != "" {
		home, _ = walkLinks(home)
	}
	if state == "" {
		state = defaultStateDir()
	}
	e := &Engine{
		log: o.Logger, root: root, rootSegs: pathSegments(root), opts: o,
		res: newResolver(root, home), policy: p, status: StatusAccepted,
		shellOpts: shell.Options{Protected: []string{folder.DirName}},
	}
	if filepath.Separator == '/' {
		e.shellOpts.Root = filepath.Clean(root)
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if o.Status != 0 {
		e.status = o.Status
	}
	if p == nil {
		e.policy, e.status = &Policy{Rules: map[Trigger]*RuleSet{}, CI: map[Trigger]*RuleSet{}}, StatusNothingAccepted
	}
	if state != "" {
		if s, err := walkLinks(state); err == nil {
			e.stateSegs = foldSegments(pathSegments(s))
		}
	}
	e.foldAllow = caseInsensitive(root, o.CaseInsensitive)
	e.homeSegs = pathSegments(home)
	e.sets = newSets()
	e.jail = &jailOnce{}
	return e, nil
}

// caseInsensitive applies the hook, or detects: darwin and windows are
// assumed case-insensitive, elsewhere the root is probed.
func caseInsensitive(root string, hook func(string) bool) bool {
	if hook != nil {
		return hook(root)
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return true
	}
	return probeCaseInsensitive(root)
}

// probeCaseInsensitive looks the root up with its last name's case
// swapped: the same file means the file system folds case.
func probeCaseInsensitive(root string) bool {
	base := filepath.Base(root)
	swapped := swapCase(base)
	if swapped == base {
		return false
	}
	a, err1 := os.Stat(root)
	b, err2 := os.Stat(filepath.Join(filepath.Dir(root), swapped))
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

func swapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = c - 32
		case c >= 'A' && c <= 'Z':
			b[i] = c + 32
		}
	}
	return string(b)
}

// Policy returns the policy the engine enforces (the accepted one). It is
// empty, never nil, when nothing was accepted. Do not modify it.
func (e *Engine) Policy() *Policy {
	e.policy.materialize()
	return e.policy
}

// Settings returns the enforced policy without its rules: its limits,
// broker, hook and shims settings. Unlike Policy, it never decodes a
// cached policy's deferred shell rules (the hook reads its wait here).
func (e *Engine) Settings() Policy {
	s := *e.policy
	s.Rules, s.CI, s.lazy = nil, nil, nil
	return s
}

// Status says whether the engine enforces policy.yaml, an older accepted
// copy, or nothing accepted.
func (e *Engine) Status() Status { return e.status }

// Root is the project root the engine decides for.
func (e *Engine) Root() string { return e.root }

// CI returns the engine an unattended CI approver asks about an escalated
// request: the policy's `ci:` approve rules allow, its deny rules deny,
// the built-in rules still apply, and anything else escalates (which CI
// treats as a denial). Remembered decisions do not apply in CI.
func (e *Engine) CI() (*Engine, error) {
	p := &Policy{File: e.policy.File, SHA256: e.policy.SHA256, Version: e.policy.Version,
		Rules: e.policy.CI, CI: map[Trigger]*RuleSet{}, Limits: e.policy.Limits, Broker: e.policy.Broker, Hook: e.policy.Hook}
	if p.Rules == nil {
		p.Rules = map[Trigger]*RuleSet{}
	}
	o := e.opts
	o.Remembered = nil
	ci, err := New(e.root, p, o)
	if err != nil {
		return nil, err
	}
	ci.status = e.status
	return ci, nil
}

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

func defaultStateDir() string {
	d, err := userstate.DefaultDir()
	if err != nil {
		return ""
	}
	return d
}
