//go:build !linux && !windows

package launcher

func helperMain() (int, bool) { return 0, false }
