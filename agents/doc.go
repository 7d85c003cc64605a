// Package agents runs many coding agents at once, each in its own git
// worktree (MAIN/.sandbox/worktrees/NAME, branch sandbox/NAME) and its own
// jail, with one human inbox. It keeps the registry of agents in the
// per-user state dir, where no jail can read or write it, and runs the
// detached supervisor that owns each agent's jail, log and terminal.
package agents
