package main

import (
	"errors"

	"github.com/sandbox-dev/sandbox/connector/hook/live"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// checkJail says whether `sandbox check` decides a command as one that
// runs in the project jail, and the line naming the policy in force.
type checkJail struct {
	jailed bool
	line   string
}

// jailForCheck decides which policy check applies: --jailed or
// --unjailed when given; inside `sandbox run`'s jail, the jailed one;
// else whether the jail can be built here (as recorded for the hook by
// init or doctor, probed and recorded when nothing was).
func jailForCheck(opts *checkOptions) checkJail {
	switch {
	case opts.jailed:
		return checkJail{true, jailedPolicyLine + " (--jailed)"}
	case opts.unjailed:
		return checkJail{false, unjailedPolicyLine("--unjailed")}
	case live.Jailed():
		return checkJail{true, jailedPolicyLine + " (this runs inside sandbox run's jail)"}
	}
	p := recordedProbe()
	if !p.OK {
		return checkJail{false, unjailedPolicyLine("the jail cannot be built here: " + p.Why)}
	}
	return checkJail{true, jailedPolicyLine}
}

// recordedProbe is the jail probe the hook reads, probing (and
// recording) when nothing was recorded.
func recordedProbe() userstate.JailProbe {
	st, err := userstate.Open(false)
	if err != nil {
		return probeJail()
	}
	p, err := st.ReadJailProbe()
	if errors.Is(err, userstate.ErrNoJailProbe) {
		p = probeJail()
		_ = st.WriteJailProbe(p) // only saves the next probe
		return p
	}
	if err != nil {
		return probeJail()
	}
	return p
}

// The two policies a folder can be under, as check and doctor name them.
const jailedPolicyLine = "jailed policy: allowed commands run in the project jail"

func unjailedPolicyLine(why string) string {
	return "unjailed policy: " + why + "; project code runners escalate"
}

// policyInForce is doctor's line for the probe p.
func policyInForce(p userstate.JailProbe) string {
	if !p.OK {
		return unjailedPolicyLine("the jail cannot be built here (" + p.Why + ")")
	}
	return jailedPolicyLine + " (for the agents whose hooks rewrite commands, run mode and the MCP server; the others' allowed commands are decided by the unjailed policy)"
}
