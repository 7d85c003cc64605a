//go:build windows

package jail_windows

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/windows"
)

// helperVar makes the test binary one of the helpers below instead of
// running tests: the jailed commands of these tests are this binary.
const helperVar = "SANDBOX_JW_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperVar); mode != "" {
		os.Exit(helper(mode, os.Args[1:]))
	}
	if v := WineVersion(); v != "" {
		fmt.Printf("jail_windows: running under Wine %s: job limits (memory, processes, CPU) are not enforced by Wine and are not checked\n", v)
	}
	os.Exit(m.Run())
}

func helper(mode string, args []string) int {
	switch mode {
	case "injob":
		in, err := isProcessInJob(windows.CurrentProcess(), 0)
		fmt.Println("injob", in, err)
		if in {
			return 0
		}
		return 1
	case "echo":
		fmt.Println(strings.Join(args, "|"), os.Getenv("JW_VALUE"))
		return 0
	case "exit":
		n, _ := strconv.Atoi(args[0])
		return n
	case "mark":
		os.WriteFile(args[0], []byte("ran"), 0o644)
		return 0
	case "sleep":
		time.Sleep(time.Minute)
		return 0
	case "spawn":
		return helperSpawn(args[0], args[1])
	case "breakaway":
		return helperBreakaway()
	case "supervise":
		return helperSupervise(args[0])
	case "procs":
		return helperProcs(args[0])
	case "alloc":
		return helperAlloc(args[0])
	}
	fmt.Fprintln(os.Stderr, "unknown helper", mode)
	return 2
}

// selfCmd runs this binary as helper mode.
func selfCmd(mode string, args ...string) *exec.Cmd {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), helperVar+"="+mode)
	return cmd
}

// helperSpawn starts a sleeping grandchild, writes "self grandchild" pids
// to file, then exits 3 (then=exit) or sleeps.
func helperSpawn(file, then string) int {
	gc := selfCmd("sleep")
	if err := gc.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "spawn:", err)
		return 2
	}
	line := fmt.Sprintf("%d %d\n", os.Getpid(), gc.Process.Pid)
	if err := os.WriteFile(file+".tmp", []byte(line), 0o644); err != nil || os.Rename(file+".tmp", file) != nil {
		return 2
	}
	if then == "exit" {
		return 3
	}
	time.Sleep(time.Minute)
	return 0
}

// helperBreakaway exits 0 when the job refuses CREATE_BREAKAWAY_FROM_JOB,
// 1 when a process broke away.
func helperBreakaway() int {
	cmd := selfCmd("sleep")
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_BREAKAWAY_FROM_JOB}
	if err := cmd.Start(); err != nil {
		fmt.Println("refused:", err)
		return 0
	}
	cmd.Process.Kill()
	cmd.Wait()
	fmt.Println("broke away")
	return 1
}

// helperSupervise is a supervisor: it jails "spawn FILE sleep" and waits
// to be killed.
func helperSupervise(file string) int {
	exe, _ := os.Executable()
	wd, _ := os.Getwd()
	env := append(os.Environ(), helperVar+"=spawn")
	var j Jail
	p, err := j.Start(context.Background(), &jailspec.Spec{
		Argv: []string{exe, file, "sleep"}, Env: env, Dir: wd, Enforce: jailspec.Enforce{Cgroup: true},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "supervise:", err)
		return 2
	}
	p.Wait(context.Background())
	return 0
}

// helperProcs starts n sleeping children at once and prints how many
// started.
func helperProcs(arg string) int {
	n, _ := strconv.Atoi(arg)
	started := 0
	for i := 0; i < n; i++ {
		c := selfCmd("sleep")
		if c.Start() != nil {
			break
		}
		defer c.Process.Kill()
		started++
	}
	fmt.Println("started", started)
	return 0
}

// helperAlloc commits arg bytes: exit 0 when it could, 1 when refused.
func helperAlloc(arg string) int {
	n, _ := strconv.ParseUint(arg, 10, 64)
	a, err := windows.VirtualAlloc(0, uintptr(n), windows.MEM_COMMIT|windows.MEM_RESERVE, windows.PAGE_READWRITE)
	if err != nil {
		fmt.Println("refused:", err)
		return 1
	}
	windows.VirtualFree(a, 0, windows.MEM_RELEASE)
	return 0
}
