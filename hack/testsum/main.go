// Command testsum reads `go test -json` on stdin and prints what a person
// needs: each package's result, the full output of every failed test, every
// skipped test with its reason, and a closing line "N passed, N failed,
// N skipped". It exits 1 when anything failed, or when the stream had no
// test at all, so a suite that silently ran nothing does not pass.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type key struct{ pkg, test string }

type summary struct {
	output                  map[key]*strings.Builder
	passed, failed, skipped []key
	buildFailed             bool
}

func main() {
	s := &summary{output: map[key]*strings.Builder{}}
	if err := s.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(2)
	}
	os.Exit(s.report(os.Stdout))
}

func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Println(sc.Text()) // not JSON: a build error, pass it through
			s.buildFailed = true
			continue
		}
		s.add(e)
	}
	return sc.Err()
}

func (s *summary) add(e event) {
	k := key{e.Package, e.Test}
	switch e.Action {
	case "output":
		b := s.output[k]
		if b == nil {
			b = &strings.Builder{}
			s.output[k] = b
		}
		if b.Len() < 256<<10 {
			b.WriteString(e.Output)
		}
	case "pass", "fail", "skip":
		s.finish(k, e)
	}
}

func (s *summary) finish(k key, e event) {
	if k.test == "" { // a package's own result
		if e.Action == "fail" {
			fmt.Printf("FAIL\t%s\t%.1fs\n", k.pkg, e.Elapsed)
			s.buildFailed = s.buildFailed || s.output[k] != nil && strings.Contains(s.output[k].String(), "[build failed]")
			fmt.Print(indent(s.output[k]))
		} else if e.Action == "pass" {
			fmt.Printf("ok\t%s\t%.1fs\n", k.pkg, e.Elapsed)
		}
		return
	}
	switch e.Action {
	case "pass":
		s.passed = append(s.passed, k)
	case "fail":
		s.failed = append(s.failed, k)
	case "skip":
		s.skipped = append(s.skipped, k)
	}
}

func (s *summary) report(w io.Writer) int {
	for _, k := range s.failed {
		fmt.Fprintf(w, "\n--- FAIL %s %s\n%s", k.pkg, k.test, indent(s.output[k]))
	}
	sort.Slice(s.skipped, func(i, j int) bool { return s.skipped[i].pkg+s.skipped[i].test < s.skipped[j].pkg+s.skipped[j].test })
	if len(s.skipped) > 0 {
		fmt.Fprintf(w, "\nskipped:\n")
	}
	for _, k := range s.skipped {
		fmt.Fprintf(w, "  %s %s: %s\n", k.pkg, k.test, skipReason(s.output[k]))
	}
	fmt.Fprintf(w, "\n%d passed, %d failed, %d skipped\n", len(s.passed), len(s.failed), len(s.skipped))
	if len(s.failed) > 0 || s.buildFailed || len(s.passed) == 0 {
		return 1
	}
	return 0
}

// skipReason is the last message the test logged before it skipped.
func skipReason(b *strings.Builder) string {
	if b == nil {
		return "(no reason given)"
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "---") && !strings.HasPrefix(l, "=== ") {
			return l
		}
	}
	return "(no reason given)"
}

func indent(b *strings.Builder) string {
	if b == nil {
		return ""
	}
	return "    " + strings.ReplaceAll(strings.TrimRight(b.String(), "\n"), "\n", "\n    ") + "\n"
}
