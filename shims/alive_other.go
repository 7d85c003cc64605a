//go:build !unix

package shims

// holdAlive does nothing where there is no jailed shim yet.
func holdAlive(string) (release func()) { return func() {} }

// aliveGone never reports a dead shim there.
func aliveGone(string) bool { return false }
