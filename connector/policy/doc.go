// Package policy is the engine that classifies what an agent tries to do
// into allow, escalate or deny. It parses policy.yaml strictly, injects
// the self-protection rules, and explains every decision part by part.
// Which policy it enforces (the last one a human accepted) and the
// remembered decisions come from package connector/policy/store, which
// keeps them signed in the per-user state and builds the engine
// (store.Load).
//
// A Bash decision goes:
//
//	decide_shell.go  Shell → decideEffects: the script's cd targets, then
//	                 each effect's part (execPart for a command)
//	index.go         the rules that can match the command's name
//	match_argv.go    each rule's shell pattern against the command's words
//	decide.go        the precedence over the matches (evaluate), then
//	                 combine over the parts and stampTo
//
// with paths.go resolving paths and match.go folding names on the way.
// Write and Read go decide_path.go → index.go → match_path.go → decide.go,
// Network and MCP decide_net.go → index.go → match_host.go or match.go →
// decide.go.
//
// The rest: engine.go (Engine, New, ForJail), schema.go (Policy, Rule),
// parse.go (policy.yaml into a Policy, with file:line errors), cache.go
// (the compiled forms: the signed per-user cache's payload, the shims'
// binary form, and shell rules decoded on first use), default.go (the
// default policy), why.go (explanations), learn.go, generalize.go and
// addrules.go (rules proposed from a human's approvals, and written into
// policy.yaml).
package policy
