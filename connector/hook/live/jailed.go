package live

import "os"

// JailVar is the variable `sandbox run` sets in the jail's environment.
const JailVar = "SANDBOX_JAIL"

// Jailed reports whether this process runs inside `sandbox run`'s jail:
// the launcher's marker, and the kernel's word that the process is
// restricted. The marker alone is not enough. Believing "jailed" makes the
// hook decide with the shims' policy cache (which is not signed) and stop
// rewriting allowed commands into the jail, so the direction a hostile
// agent would forge is "I am jailed"; the marker comes from the agent's
// own environment, but no_new_privs comes from how the agent itself was
// started, which the agent's tool calls cannot change. The other
// direction is safe: a jailed hook that wrongly believes it is outside
// cannot read the per-user state and fails closed.
func Jailed() bool {
	return os.Getenv(JailVar) == "1" && restricted()
}
