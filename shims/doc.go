// Package shims is run mode's PATH shims. `sandbox run` links the sandbox
// binary into .sandbox/shims/ under the names of privileged tools (git,
// npm, curl, ssh, sudo, ...) and puts that directory first on the jail's
// PATH. Called under one of those names, the binary classifies its own
// argv (never re-joined into a script) with the folder's accepted policy:
// allowed, it execs the real tool (the next match on PATH, never itself);
// denied, it says why and exits 126; escalated, it submits a request
// (source "shim") from inside the jail, streams the broker's output as an
// approver runs the command outside the jail, and exits with its exit
// code, so that scripts and agents see a normal command.
//
// The shim is a convenience, not the boundary: a jailed process can run
// /usr/bin/git itself, and gets only what the jail allows. The shim's
// value is turning "needs a privilege the jail lacks" into a question
// for a human instead of a failure.
package shims
