// Package launcher is the supervisor of run mode (`sandbox run -- CMD`):
// it asks the OS jail what it can enforce, refuses to start when a layer
// is missing unless the user accepted it, builds the jail's Spec (writable
// and read-only paths, hidden per-user state, limits, environment with the
// proxy and the shim directory), starts the egress proxy, starts the
// command in the jail, forwards signals, and returns the command's exit
// status. The jail itself lives in jail_linux and jail_windows behind
// the small Jail interface this package owns.
package launcher
