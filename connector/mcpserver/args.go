package mcpserver

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Argument limits.
const (
	maxCommand = queue.MaxScript
	maxReason  = queue.MaxJustification
)

// args is a tool call's arguments, checked one by one.
type args struct {
	m    map[string]any
	errs []string
}

func newArgs(b json.RawMessage, known ...string) *args {
	a := &args{}
	var raw any
	if len(b) > 0 && json.Unmarshal(b, &raw) != nil {
		raw = b // not JSON: reported below
	}
	switch m := raw.(type) {
	case nil:
		a.m = map[string]any{}
	case map[string]any:
		a.m = m
	default:
		a.errs = append(a.errs, "the arguments must be an object")
		a.m = map[string]any{}
	}
	var unknown []string
	for k := range a.m {
		if !slices.Contains(known, k) {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	slices.Sort(unknown)
	if len(unknown) > 0 {
		a.errs = append(a.errs, fmt.Sprintf("unknown argument(s) %s (expected: %s)", strings.Join(unknown, ", "), strings.Join(known, ", ")))
	}
	return a
}

// str returns a string argument; required ones must be non-blank.
func (a *args) str(name string, required bool, max int) string {
	v, ok := a.m[name]
	if !ok || v == nil {
		if required {
			a.errs = append(a.errs, fmt.Sprintf("%q is required", name))
		}
		return ""
	}
	s, ok := v.(string)
	switch {
	case !ok:
		a.errs = append(a.errs, fmt.Sprintf("%q must be a string", name))
	case !utf8.ValidString(s) || strings.ContainsRune(s, 0):
		a.errs = append(a.errs, fmt.Sprintf("%q must be valid UTF-8 without NUL bytes", name))
	case len(s) > max:
		a.errs = append(a.errs, fmt.Sprintf("%q is longer than %d bytes", name, max))
	case required && strings.TrimSpace(s) == "":
		a.errs = append(a.errs, fmt.Sprintf("%q must not be empty", name))
	default:
		return s
	}
	return ""
}

// wait returns wait_seconds: DefaultWaitSeconds when absent, an integer
// from 0 to MaxWaitSeconds otherwise (a numeric string is accepted).
func (a *args) wait() time.Duration {
	v, ok := a.m["wait_seconds"]
	if !ok || v == nil {
		return DefaultWaitSeconds * time.Second
	}
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case string:
		p, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if err != nil {
			a.errs = append(a.errs, `"wait_seconds" must be a number of seconds`)
			return 0
		}
		f = p
	default:
		a.errs = append(a.errs, `"wait_seconds" must be a number of seconds`)
		return 0
	}
	if f != math.Trunc(f) || f < 0 || f > MaxWaitSeconds {
		a.errs = append(a.errs, fmt.Sprintf(`"wait_seconds" must be a whole number from 0 to %d`, MaxWaitSeconds))
		return 0
	}
	return time.Duration(f) * time.Second
}

// err is every problem found, as one ErrBadArguments.
func (a *args) err(tool string) error {
	if len(a.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w: %s", tool, ErrBadArguments, strings.Join(a.errs, "; "))
}

// workDir resolves cwd (absolute, or relative to the project root) and
// checks that it is a directory inside the project, symlinks resolved.
func workDir(root, cwd string) (string, error) {
	if cwd == "" {
		return root, nil
	}
	p := cwd
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("%w: \"cwd\" %q: %v", ErrBadArguments, cwd, err)
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%w: \"cwd\" %q is outside the project %s", ErrBadArguments, cwd, root)
	}
	return real, nil
}
