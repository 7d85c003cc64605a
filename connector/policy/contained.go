package policy

import "github.com/sandbox-dev/sandbox/connector/shell"

// ruleContained labels the parts containedPart decides.
const ruleContained = "jail:contained"

// containedPart decides an Opaque effect of a command that a `jailed:
// true` rule allows on the jailed engine: what the analyzer cannot see
// (program text given to an interpreter, a file `source` runs, the
// options a script's variable holds) is the program's own business, and
// the rule says that program may run in the jail whatever it does. The
// jail, not the analyzer, contains it: it writes only the project, reads
// no secret the jail hides, reaches only hosts the proxy allows or asks
// about. So `node -e CODE` is what `node script.js` is there. Without the
// jail the rule does not count, and the Opaque part escalates as always;
// a Protected part (.sandbox named) is denied either way.
func containedPart(ef *shell.Effect) Part {
	return Part{Trigger: Shell, Subject: effectSubject(ef), Decision: Allow, Rule: ruleContained,
		Reason: joinReason(ef.Reason, "contained by the jail: the command's jailed rule allows what it runs"),
		Effect: "opaque " + clipText(effectSubject(ef), maxSubject)}
}
