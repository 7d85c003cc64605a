//go:build unix

package launcher

import (
	"syscall"
	"testing"
	"time"
)

// reportCPU adds the process's CPU time per operation since the last
// call: a figure that machine load does not inflate the way wall time is.
func reportCPU(b *testing.B, n int) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil || n == 0 {
		return
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	b.ReportMetric(float64(cpu.Microseconds()-cpuMark.Microseconds())/float64(n), "cpu-µs/op")
	cpuMark = cpu
}

var cpuMark time.Duration

// markCPU starts a measurement.
func markCPU() {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpuMark = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
}
