package adapter

import (
	"slices"
	"testing"
)

func TestLaunchArgv(t *testing.T) {
	t.Parallel()
	claude := Launch{Command: "claude", Headless: []string{"-p"}, Resume: []string{"--continue"}}
	gemini := Launch{Command: "gemini", Headless: []string{"--prompt"}, Interactive: []string{"--prompt-interactive"}, Joined: true}
	for _, tc := range []struct {
		name             string
		l                Launch
		task             string
		headless, resume bool
		want             []string
	}{
		{"claude headless", claude, "fix it", true, false, []string{"claude", "-p", "fix it"}},
		{"claude interactive", claude, "", false, false, []string{"claude"}},
		{"claude first message", claude, "hi", false, false, []string{"claude", "hi"}},
		{"claude resumed", claude, "", false, true, []string{"claude", "--continue"}},
		{"claude resumed headless", claude, "t", true, true, []string{"claude", "--continue", "-p", "t"}},
		{"gemini headless", gemini, "-x y", true, false, []string{"gemini", "--prompt=-x y"}},
		{"gemini first message", gemini, "hi", false, false, []string{"gemini", "--prompt-interactive=hi"}},
		{"gemini cannot resume", gemini, "", false, true, []string{"gemini"}},
		{"task that looks like a flag", claude, "--help", true, false, []string{"claude", "-p", "--", "--help"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.l.Argv(tc.task, tc.headless, tc.resume); !slices.Equal(got, tc.want) {
				t.Errorf("Argv = %q, want %q", got, tc.want)
			}
		})
	}
}
