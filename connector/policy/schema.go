package policy

import (
	"fmt"
	"strconv"
	"strings"
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
	// Agents is the agents: section (`sandbox agents`).
	Agents Agents `json:",omitzero"`
	// Shims lists the tools run mode shims (nil: the default list).
	Shims []string
	// Approvers lists the keys trusted to decide this folder's requests
	// from another machine (team mode; approvers.go).
	Approvers []Approver `json:",omitempty"`

	// lazy holds the shell rules of a policy decoded from the signed cache
	// until they are needed (lazyShell in cache.go): Rules[Shell] is empty until
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
	lazy *lazyArgv // a shell pattern compiled on first use (see lazyArgv in match_argv.go)
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

// Agents holds the commands `sandbox agents` runs in each agent's jail,
// in its worktree, and where it tells a human that an agent waits.
type Agents struct {
	Setup   string `json:",omitempty"` // before the agent starts (npm ci)
	Test    string `json:",omitempty"` // before a land request is shown
	Webhook string `json:",omitempty"` // notify.webhook: POSTed JSON when an agent starts waiting
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
	Agents  agentsDoc   `yaml:"agents"`
	Shims   yaml.Node   `yaml:"shims"`
	// Approvers: team mode's trusted keys (approvers.go)
	Approvers []approverDoc `yaml:"approvers"`
}

type agentsDoc struct {
	Setup  string `yaml:"setup"`
	Test   string `yaml:"test"`
	Notify struct {
		Webhook yaml.Node `yaml:"webhook"`
	} `yaml:"notify"`
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

// MinPIDs is the smallest process limit run mode accepts: the jail's init
// (a Go program) needs a few threads before the command starts.
const MinPIDs = 16

// MemoryBytes is the memory limit in bytes; 0 when none is set.
func (l Limits) MemoryBytes() (int64, error) {
	n, err := ParseSize(l.Memory)
	if err != nil {
		return 0, fmt.Errorf("limits.memory %q: want a size such as 512M or 4GiB", l.Memory)
	}
	return n, nil
}

// CPUCores is the CPU limit in cores ("200%" and "2" are two cores, "1.5"
// one and a half); 0 when none is set.
func (l Limits) CPUCores() (float64, error) {
	s := strings.TrimSpace(l.CPU)
	if s == "" {
		return 0, nil
	}
	scale := 1.0
	if t, ok := strings.CutSuffix(s, "%"); ok {
		s, scale = strings.TrimSpace(t), 0.01
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f*scale > 4096 {
		return 0, fmt.Errorf("limits.cpu %q: want cores (1.5) or a percentage (150%%)", l.CPU)
	}
	return f * scale, nil
}

// ParseSize reads "" (0), a byte count, or a count with K, M, G or T
// (powers of 1024, with an optional trailing "B" or "iB").
func ParseSize(s string) (int64, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	mult := int64(1)
	if i := strings.IndexAny(t, "KMGT"); i >= 0 && i == len(t)-1 {
		mult = int64(1) << (10 * (strings.IndexByte("KMGT", t[i]) + 1))
		t = t[:i]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return n * mult, nil
}
