//go:build unix

// Command timeit runs whole commands many times, interleaved, and prints
// each one's median and p90 wall time and peak RSS, and the ratio of every
// command to the first (the baseline). hack/bench*.sh use it so that we and
// the peers are measured side by side in one run.
//
//	timeit [-n RUNS] -- BASELINE... -- CMD... [-- CMD...]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

type sample struct {
	wall   time.Duration
	maxRSS int64 // KiB
}

func main() {
	runs := flag.Int("n", 200, "runs per command")
	warm := flag.Int("warmup", 10, "untimed runs per command first")
	flag.StringVar(&stdinFile, "stdin", "", "feed this file to every command's standard input")
	flag.Parse()
	cmds := split(flag.Args())
	if len(cmds) < 1 {
		fmt.Fprintln(os.Stderr, "usage: timeit [-n RUNS] -- BASELINE... [-- CMD...]...")
		os.Exit(2)
	}
	samples := make([][]sample, len(cmds))
	for i := 0; i < *warm+*runs; i++ {
		for j, c := range cmds {
			s, err := once(c)
			if err != nil {
				fmt.Fprintf(os.Stderr, "timeit: %s: %v\n", strings.Join(c, " "), err)
				os.Exit(1)
			}
			if i >= *warm {
				samples[j] = append(samples[j], s)
			}
		}
	}
	report(cmds, samples)
}

func split(args []string) [][]string {
	var out [][]string
	var cur []string
	for _, a := range args {
		if a == "--" {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, a)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// stdinFile, when set, is every command's standard input (-stdin).
var stdinFile string

func once(argv []string) (sample, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = nil, nil
	if stdinFile != "" {
		f, err := os.Open(stdinFile)
		if err != nil {
			return sample{}, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			return sample{}, err
		}
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	return sample{wall: wall, maxRSS: rss}, nil
}

func report(cmds [][]string, samples [][]sample) {
	base := median(samples[0])
	for j, c := range cmds {
		med, p90 := median(samples[j]), percentile(samples[j], 0.9)
		fmt.Printf("%-60s median %8.3f ms  p90 %8.3f ms  maxrss %6d KiB  x%.2f\n",
			trim(strings.Join(c, " "), 60), ms(med), ms(p90), maxRSS(samples[j]), float64(med)/float64(base))
	}
}

func median(s []sample) time.Duration { return percentile(s, 0.5) }

func percentile(s []sample, p float64) time.Duration {
	d := make([]time.Duration, len(s))
	for i, x := range s {
		d[i] = x.wall
	}
	slices.Sort(d)
	return d[int(float64(len(d)-1)*p)]
}

func maxRSS(s []sample) int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.maxRSS)
	}
	return m
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
