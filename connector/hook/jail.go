package hook

// Jailer rewrites an allowed shell command into the same command run in
// the project jail (`sandbox run` semantics: quiet, exit status, output,
// working directory and environment unchanged as far as the jail allows),
// so that a mistake of the policy's analyzer is contained by the kernel
// instead of running with the user's rights. Adapters whose agent lets a
// hook replace the tool's input (Claude Code's updatedInput) send the
// rewritten command; the others cannot, and run the original.
type Jailer interface {
	Wrap(script, cwd string) (string, error)
}

// FreshJailer is a Jailer that also writes the plain jailed form for a
// call whose agent starts every command in a fresh shell (Call.FreshShell):
// the command run in the jail and nothing else, no directory carried back
// and no command substitution (Gemini CLI refuses any command that holds
// one outside quotes).
type FreshJailer interface {
	WrapFresh(script string) (string, error)
}

// JailState says where the core runs and what it does with allowed
// commands; the session brief and `sandbox doctor` tell the model and the
// human.
type JailState int

const (
	// JailUnknown: the core was built by hand (tests); nothing is said.
	JailUnknown JailState = iota
	// JailWraps: connector mode; allowed commands are rewritten into the
	// project jail where the agent allows it.
	JailWraps
	// JailInside: the hook runs inside `sandbox run`'s jail; allowed
	// commands are jailed already and escalations go to the trusted side
	// through the folder bus.
	JailInside
	// JailUnavailable: the jail cannot be built on this machine; allowed
	// commands run with the user's rights, checked by the analyzer alone.
	JailUnavailable
)

// wrap returns the jailed form of an allowed shell call's script, or ""
// when the core has no jailer or the call is no shell command. A script
// that cannot be wrapped is an error: the call must not run unjailed.
func (c *Core) wrap(call *Call) (string, error) {
	if c.Jail == nil || call.Action != Shell {
		return "", nil
	}
	if f, ok := c.Jail.(FreshJailer); ok && call.FreshShell {
		return f.WrapFresh(call.Script)
	}
	return c.Jail.Wrap(call.Script, call.Cwd)
}
