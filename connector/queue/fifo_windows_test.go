//go:build windows

package queue

import (
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

func mkfifo(t *testing.T, _ string) {
	t.Helper()
	testenv.Skip(t, "no FIFOs on Windows")
}
