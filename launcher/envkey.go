package launcher

import (
	"runtime"
	"strings"
)

// envKey is the form under which the OS compares an environment
// variable's name: Windows ignores case (its PATH is spelled "Path").
func envKey(k string) string {
	if runtime.GOOS == "windows" {
		return strings.ToUpper(k)
	}
	return k
}
