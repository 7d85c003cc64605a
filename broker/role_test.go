package broker_test

import (
	"os"
	"os/exec"
	"strconv"
	"time"
)

// The test binary doubles as the programs of the process-tree tests: with
// BROKER_TEST_ROLE=spawn it starts a copy of itself as a detached
// "sleep" (its pid written to the file BROKER_TEST_PIDFILE) and exits at
// once; as "sleep" it sleeps for a long time.
const (
	roleVar    = "BROKER_TEST_ROLE"
	pidFileVar = "BROKER_TEST_PIDFILE"
)

func runRole(role string) int {
	switch role {
	case "spawn":
		exe, _ := os.Executable()
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), roleVar+"=sleep")
		cmd.SysProcAttr = detached()
		if err := cmd.Start(); err != nil {
			return 1
		}
		os.WriteFile(os.Getenv(pidFileVar), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
		return 0
	case "sleep":
		time.Sleep(10 * time.Minute)
	}
	return 2
}
