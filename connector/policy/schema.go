package policy

import (
	"time"

	"go.yaml.in/yaml/v3"
)

// Version is the only policy file version this engine reads.
const Version = 1

// Policy is a parsed, validated policy file.
type Policy struct {
	File    string // where it was read from, for messages
	SHA256  string // hex digest of the bytes it was parsed from
	Version int
	// Rules holds the rules of each trigger.
	Rules map[Trigger]*RuleSet
	// CI holds, per trigger, what an unattended CI run approves (Allow)
	// or refuses (Deny) among the escalations; anything else is refused.
	CI     map[Trigger]*RuleSet
	Limits Limits
	Broker Broker
	Hook   Hook
	Run    Run
	// Shims lists the tools run mode shims (nil: the default list).
	Shims []string

	// lazy holds the shell rules of a policy decoded from the signed cache
	// until they are needed (lazyshell.go): Rules[Shell] is empty until
	// Engine.Policy materializes them. Nil for a parsed policy.
	lazy *lazyShell
}

// RuleSet is the rules of one trigger, by tier.
type RuleSet struct {
	Allow, Escalate, Deny []*Rule
}

// Rule is one pattern with its tier and the reason shown to the human.
type Rule struct {
	Trigger Trigger
	Tier    Tier
	Pattern string
	Reason  string
	// Dynamic (shell allow rules only) lets the rule allow a command whose
	// '**' absorbs words whose value is unknown ($VAR, globs) or the
	// arguments xargs appends. Without it such a match escalates.
	Dynamic bool
	// Jailed (shell rules only) makes the rule count only for commands
	// that run in the project jail (an engine from Engine.ForJail); on
	// the unjailed engine it is as if absent.
	Jailed bool
	Line   int // in the policy file; 0 for built-in rules

	argv *argvPattern
	lazy *lazyArgv // a shell pattern compiled on first use (see lazyargv.go)
	path *pathPattern
	host *hostPattern
	tool *wildcard
}

// Limits are the resource limits of run mode. Zero means the default.
type Limits struct {
	Memory string `yaml:"memory"` // e.g. "4GiB"
	PIDs   int    `yaml:"pids"`
	CPU    string `yaml:"cpu"` // e.g. "200%" (two cores)
}

// Broker tunes the process that runs approved commands.
type Broker struct {
	// Env lists the environment variables passed to approved commands.
	Env []string `yaml:"env"`
}

// Run tunes run mode's jail.
type Run struct {
	Env RunEnv
}

// RunEnv adds to the patterns of the variables the jail does not get
// (Drop) and lets some through although they match one (Keep). A
// pattern is a variable name with '*' for any run of characters,
// compared without regard to case.
type RunEnv struct {
	Keep []string `json:",omitempty"`
	Drop []string `json:",omitempty"`
}

// Hook tunes the agent hooks.
type Hook struct {
	// Wait is how long a hook waits for a human before it gives up (and
	// denies). Zero means the default.
	Wait time.Duration
	// DeferAllow makes the hooks answer nothing for an allowed call, so
	// that the agent's own permission prompts decide it, instead of
	// pre-approving it (as `sandbox hook --defer-allow`).
	DeferAllow bool
}

// fileDoc is the YAML document. Rule lists are kept as nodes so that each
// rule is decoded by hand, with its own line and strict keys (yaml.v3
// does not apply KnownFields inside Node.Decode).
type fileDoc struct {
	Version yaml.Node   `yaml:"version"`
	Shell   *triggerDoc `yaml:"shell"`
	Write   *triggerDoc `yaml:"write"`
	Read    *triggerDoc `yaml:"read"`
	Network *triggerDoc `yaml:"network"`
	MCP     *triggerDoc `yaml:"mcp"`
	Limits  Limits      `yaml:"limits"`
	CI      *ciDoc      `yaml:"ci"`
	Broker  brokerDoc   `yaml:"broker"`
	Hook    hookDoc     `yaml:"hook"`
	Run     runDoc      `yaml:"run"`
	Shims   yaml.Node   `yaml:"shims"`
}

type runDoc struct {
	Env runEnvDoc `yaml:"env"`
}

type runEnvDoc struct {
	Keep []yaml.Node `yaml:"keep"`
	Drop []yaml.Node `yaml:"drop"`
}

type brokerDoc struct {
	Env []yaml.Node `yaml:"env"`
}

type triggerDoc struct {
	Allow    []yaml.Node `yaml:"allow"`
	Escalate []yaml.Node `yaml:"escalate"`
	Deny     []yaml.Node `yaml:"deny"`
}

type ciDoc struct {
	Shell   *ciRulesDoc `yaml:"shell"`
	Write   *ciRulesDoc `yaml:"write"`
	Read    *ciRulesDoc `yaml:"read"`
	Network *ciRulesDoc `yaml:"network"`
	MCP     *ciRulesDoc `yaml:"mcp"`
}

type ciRulesDoc struct {
	Approve []yaml.Node `yaml:"approve"`
	Deny    []yaml.Node `yaml:"deny"`
}

type hookDoc struct {
	Wait       yaml.Node `yaml:"wait"`
	DeferAllow bool      `yaml:"defer_allow"`
}
