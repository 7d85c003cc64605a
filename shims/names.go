package shims

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/policy"
)

// Default is the list of tools shimmed when the policy has no `shims:`
// key: version control, package managers, network tools, containers,
// clusters and privilege changes.
var Default = []string{
	"git", "npm", "npx", "yarn", "pnpm", "pip", "pip3", "curl", "wget",
	"ssh", "scp", "rsync", "docker", "kubectl", "gh", "sudo", "su",
}

// Environment variables `sandbox run` gives the jail for the shims.
const (
	// EnvNames lists, comma-separated, the shim names beyond Default that
	// the policy configured.
	EnvNames = "SANDBOX_SHIMS"
	// EnvDir is the shim directory (.sandbox/shims of the project).
	EnvDir = "SANDBOX_SHIM_DIR"
	// EnvSession is the run's session id, carried by every request.
	EnvSession = "SANDBOX_SESSION"
	// EnvAgent names the agent the run started, carried by every request.
	EnvAgent = "SANDBOX_AGENT"
	// EnvJail is "1" inside the jail (set by the launcher).
	EnvJail = "SANDBOX_JAIL"
	// EnvCI is "1" in CI mode (set by the launcher).
	EnvCI = "SANDBOX_CI"
	// EnvNoCheckpoints is "1" when the run serves no checkpoints
	// (connector mode's one command, whose hook ran outside): a hook
	// inside keeps none and promises none.
	EnvNoCheckpoints = "SANDBOX_NO_CHECKPOINTS"
)

// ValidName reports whether name can be a shim (policy.ValidShimName):
// a plain command name, never the sandbox binary's own.
func ValidName(name string) bool { return policy.ValidShimName(name) }

// CheckNames validates a configured shim list.
func CheckNames(names []string) error {
	for i, n := range names {
		if !ValidName(n) {
			return fmt.Errorf("%w: %q", ErrBadName, n)
		}
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("%w: %q is listed twice", ErrBadName, n)
		}
	}
	return nil
}

// isShim reports whether this process runs under a shim's name: one of
// Default or of $SANDBOX_SHIMS.
func isShim(name string) bool {
	if !ValidName(name) {
		return false
	}
	if slices.Contains(Default, name) {
		return true
	}
	extra := os.Getenv(EnvNames)
	return extra != "" && slices.Contains(strings.Split(extra, ","), name)
}

// commandName is the shim name this process was called by: the base name
// of argv[0] without a Windows ".exe".
func commandName(argv0 string) string {
	i := strings.LastIndexAny(argv0, `/\`)
	name := argv0[i+1:]
	if n, ok := strings.CutSuffix(name, ".exe"); ok {
		return n
	}
	return name
}
