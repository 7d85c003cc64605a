//go:build !linux

package launcher

func helperMain() (int, bool) { return 0, false }
