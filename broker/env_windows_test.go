//go:build windows

package broker_test

import (
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/broker"
)

// On Windows the default environment is one Windows programs can start in,
// and names compare case-insensitively (Path is PATH).
func TestWindowsScrubDefaults(t *testing.T) {
	got := broker.Scrub([]string{"Path=C:\\agent\\evil", "SystemRoot=C:\\Windows", "PathExt=.EXE", "Temp=C:\\t", "GIT_DIR=x"}, nil)
	env := strings.Join(got, "\n")
	for _, want := range []string{"SystemRoot=C:\\Windows", "PathExt=.EXE", "Temp=C:\\t", "PATH=" + broker.DefaultPATH} {
		if !strings.Contains(env, want) {
			t.Errorf("scrubbed env lacks %q:\n%s", want, env)
		}
	}
	for _, bad := range []string{"evil", "GIT_DIR"} {
		if strings.Contains(env, bad) {
			t.Errorf("scrubbed env kept %q:\n%s", bad, env)
		}
	}
	if !strings.Contains(strings.ToLower(broker.DefaultPATH), `\system32`) {
		t.Errorf("DefaultPATH %q lacks System32", broker.DefaultPATH)
	}
}
