//go:build windows

package broker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// toolDir is a directory holding NAME.bat, which prints "NAME ran".
func toolDir(t *testing.T, name string) string {
	t.Helper()
	dir := testenv.TempDir(t)
	bat := filepath.Join(dir, name+".bat")
	if err := os.WriteFile(bat, []byte("@echo off\r\necho "+name+" ran\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A bare program name is searched on the PATH of the request's scrubbed
// environment (with its PATHEXT), never on the broker's own PATH.
func TestWindowsArgvSearchesRequestPath(t *testing.T) {
	mine, theirs := toolDir(t, "mine"), toolDir(t, "theirs")
	t.Setenv("PATH", theirs+string(os.PathListSeparator)+os.Getenv("PATH"))
	root := testenv.TempDir(t)
	sys := os.Getenv("SystemRoot") // cmd.exe runs the batch files
	cases := []struct {
		name    string
		env     []string
		argv0   string
		wantOut string // "" means ErrNotFound
	}{
		{"on the request's PATH", []string{"PATH=" + mine, "SystemRoot=" + sys}, "mine", "mine ran"},
		{"Path spelled the Windows way", []string{"Path=" + mine, "SystemRoot=" + sys}, "mine", "mine ran"},
		{"with its extension", []string{"PATH=" + mine, "SystemRoot=" + sys}, "mine.bat", "mine ran"},
		{"only on the broker's PATH", []string{"PATH=" + mine, "SystemRoot=" + sys}, "theirs", ""},
		{"no PATH", []string{"SystemRoot=" + sys}, "theirs", ""},
		{"relative PATH entry", []string{"PATH=.", "SystemRoot=" + sys}, "mine", ""},
		{"PATHEXT without .bat", []string{"PATH=" + mine, "PATHEXT=.EXE", "SystemRoot=" + sys}, "mine", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			dir := root
			if tc.name == "relative PATH entry" {
				dir = mine
			}
			oc, err := broker.Run(ctx, broker.Spec{Argv: []string{tc.argv0}, Root: dir, Env: tc.env, Timeout: time.Minute})
			if tc.wantOut == "" {
				if !errors.Is(err, broker.ErrNotFound) {
					t.Fatalf("Run = %+v, %v; want ErrNotFound", oc, err)
				}
				return
			}
			if err != nil || !strings.Contains(oc.Stdout, tc.wantOut) {
				t.Fatalf("Run = %+v, %v; want %q", oc, err, tc.wantOut)
			}
		})
	}
}
