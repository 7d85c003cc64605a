//go:build windows

package shims

import (
	"errors"
	"os"
	"os/exec"
)

const exeSuffix = ".exe"

func selfInfo() os.FileInfo {
	p, err := os.Executable()
	if err != nil {
		return nil
	}
	fi, _ := os.Stat(p)
	return fi
}

func executable(os.FileInfo) bool { return true }

// execTool runs the real tool with this process's streams and exits with
// its exit code (Windows has no exec).
func execTool(path string, argv []string) error {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}
