//go:build unix

package broker_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
)

// reportMedian times each iteration of fn and reports the median in ms.
func reportMedian(b *testing.B, fn func(i int)) {
	b.Helper()
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		fn(i)
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
}

// BenchmarkRunTrue: Run of argv /bin/true end to end, with a log file,
// a checked cwd and the scrubbed environment.
func BenchmarkRunTrue(b *testing.B) {
	root, logs := b.TempDir(), b.TempDir()
	env := broker.Scrub(os.Environ(), nil)
	reportMedian(b, func(i int) {
		oc, err := broker.Run(context.Background(), broker.Spec{
			Argv: []string{"/bin/true"}, Root: root, Env: env,
			LogPath: filepath.Join(logs, fmt.Sprintf("%d.log", i)),
		})
		if err != nil || oc.ExitCode != 0 {
			b.Fatal(oc, err)
		}
	})
}

// BenchmarkRunTrueNoLog: the same without a log file, to separate the
// file system's cost of creating one.
func BenchmarkRunTrueNoLog(b *testing.B) {
	root := b.TempDir()
	env := broker.Scrub(os.Environ(), nil)
	reportMedian(b, func(int) {
		if _, err := broker.Run(context.Background(), broker.Spec{Argv: []string{"/bin/true"}, Root: root, Env: env}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkRunScriptTrue: the same through `bash -c true`.
func BenchmarkRunScriptTrue(b *testing.B) {
	root, logs := b.TempDir(), b.TempDir()
	env := broker.Scrub(os.Environ(), nil)
	reportMedian(b, func(i int) {
		if _, err := broker.Run(context.Background(), broker.Spec{
			Script: "true", Root: root, Env: env,
			LogPath: filepath.Join(logs, fmt.Sprintf("%d.log", i)),
		}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkExecTrue is the baseline: a bare fork/exec of /bin/true.
func BenchmarkExecTrue(b *testing.B) {
	reportMedian(b, func(int) {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkApplyWrite: an atomic write of 4 KiB inside the root.
func BenchmarkApplyWrite(b *testing.B) {
	root := b.TempDir()
	data := make([]byte, 4096)
	reportMedian(b, func(int) {
		if _, err := broker.ApplyWrite(root, "dir/f.txt", data); err != nil {
			b.Fatal(err)
		}
	})
}
