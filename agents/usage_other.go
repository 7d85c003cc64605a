//go:build !linux

package agents

// jailUsage: jails with cgroups exist on Linux only.
func jailUsage(int) (float64, int64) { return 0, 0 }
