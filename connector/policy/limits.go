package policy

import (
	"fmt"
	"strconv"
	"strings"
)

// MinPIDs is the smallest process limit run mode accepts: the jail's init
// (a Go program) needs a few threads before the command starts.
const MinPIDs = 16

// MemoryBytes is the memory limit in bytes; 0 when none is set.
func (l Limits) MemoryBytes() (int64, error) {
	n, err := ParseSize(l.Memory)
	if err != nil {
		return 0, fmt.Errorf("limits.memory %q: want a size such as 512M or 4GiB", l.Memory)
	}
	return n, nil
}

// CPUCores is the CPU limit in cores ("200%" and "2" are two cores, "1.5"
// one and a half); 0 when none is set.
func (l Limits) CPUCores() (float64, error) {
	s := strings.TrimSpace(l.CPU)
	if s == "" {
		return 0, nil
	}
	scale := 1.0
	if t, ok := strings.CutSuffix(s, "%"); ok {
		s, scale = strings.TrimSpace(t), 0.01
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f*scale > 4096 {
		return 0, fmt.Errorf("limits.cpu %q: want cores (1.5) or a percentage (150%%)", l.CPU)
	}
	return f * scale, nil
}

// ParseSize reads "" (0), a byte count, or a count with K, M, G or T
// (powers of 1024, with an optional trailing "B" or "iB").
func ParseSize(s string) (int64, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	mult := int64(1)
	if i := strings.IndexAny(t, "KMGT"); i >= 0 && i == len(t)-1 {
		mult = int64(1) << (10 * (strings.IndexByte("KMGT", t[i]) + 1))
		t = t[:i]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return n * mult, nil
}
