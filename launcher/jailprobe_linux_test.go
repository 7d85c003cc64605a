//go:build linux

package launcher

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// probeEnv makes the test binary a probe: `launcher.test probe MODE ARGS`.
const probeEnv = "SANDBOX_TEST_PROBE"

// helperMain runs the probe or the re-executed supervisor when the
// environment asks for one.
func helperMain() (int, bool) {
	switch {
	case os.Getenv(probeEnv) == "1" && len(os.Args) > 2 && os.Args[1] == "probe":
		return runProbe(os.Args[2], os.Args[3:]), true
	case os.Getenv(supervisorEnv) != "":
		return runSupervisor(os.Getenv(supervisorEnv)), true
	}
	return 0, false
}

// probes print "ok" or "err <errno name>: <message>" and exit 0; an
// unknown mode exits 2.
var probes = map[string]func(args []string) error{
	"write":    func(a []string) error { return os.WriteFile(a[0], []byte("x"), 0o644) },
	"read":     func(a []string) error { _, err := os.ReadFile(a[0]); return err },
	"rename":   func(a []string) error { return os.Rename(a[0], a[1]) },
	"kill0":    func(a []string) error { return unix.Kill(atoi(a[0]), 0) },
	"ptrace":   func(a []string) error { return unix.PtraceAttach(atoi(a[0])) },
	"iouring":  probeIOURing,
	"tiocsti":  probeTIOCSTI,
	"connect":  func(a []string) error { c, err := net.DialTimeout("tcp", a[0], 2*time.Second); closeIf(c); return err },
	"tunnel":   probeTunnel,
	"status":   probeStatus,
	"euid":     func([]string) error { fmt.Println("euid", os.Geteuid()); return nil },
	"forks":    probeForks,
	"alloc":    probeAlloc,
	"sleep":    probeSleep,
	"netlink":  func([]string) error { return socketErr(unix.AF_NETLINK, unix.SOCK_RAW, 0) },
	"rawsock":  func([]string) error { return socketErr(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP) },
	"udp":      func([]string) error { return socketErr(unix.AF_INET, unix.SOCK_DGRAM, 0) },
	"ctty-sti": probeCttySTI,
	"fds":      probeFDs,
	"unix":     func(a []string) error { c, err := net.Dial("unix", a[0]); closeIf(c); return err },
}

// probeFDs fails when the process holds a socket (the jail's control
// socket) or the file args[0], which the test left open without
// close-on-exec in the supervisor.
func probeFDs(args []string) error {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	var leaked []string
	for _, e := range entries {
		target, _ := os.Readlink("/proc/self/fd/" + e.Name())
		if strings.HasPrefix(target, "socket:") || target == args[0] {
			leaked = append(leaked, e.Name()+"->"+target)
		}
	}
	if len(leaked) > 0 {
		return fmt.Errorf("inherited descriptors: %v", leaked)
	}
	return nil
}

func runProbe(mode string, args []string) int {
	if mode == "batch" {
		return runBatch(args)
	}
	p, ok := probes[mode]
	if !ok {
		fmt.Println("unknown probe", mode)
		return 2
	}
	fmt.Println(probeResult(p(args)))
	return 0
}

func probeResult(err error) string {
	var errno syscall.Errno
	var v verbatim
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &v):
		return string(v)
	case errors.As(err, &errno):
		return fmt.Sprintf("err %s: %v", unix.ErrnoName(errno), err)
	}
	return fmt.Sprintf("err: %v", err)
}

// runBatch runs several probes in one jail (starting a jail per probe
// is slow under the race detector): "MODE ARGS... ; MODE ARGS...", one
// output line "#N RESULT" per probe.
func runBatch(args []string) int {
	n := 0
	for len(args) > 0 {
		i := slices.Index(args, ";")
		if i < 0 {
			i = len(args)
		}
		op := args[:i]
		if p, ok := probes[op[0]]; ok {
			fmt.Printf("#%d %s\n", n, probeResult(p(op[1:])))
		} else {
			fmt.Printf("#%d unknown probe %s\n", n, op[0])
		}
		args = args[min(i+1, len(args)):]
		n++
	}
	return 0
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func closeIf(c net.Conn) {
	if c != nil {
		c.Close()
	}
}

func socketErr(domain, typ, proto int) error {
	fd, err := unix.Socket(domain, typ, proto)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

func probeIOURing([]string) error {
	var params [120]byte
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
	if errno != 0 {
		return errno
	}
	unix.Close(int(fd))
	return nil
}

// probeTIOCSTI opens a pseudo-terminal and re-runs itself as a session
// leader whose controlling terminal it is, so that TIOCSTI would work
// but for the filter ("ctty-sti" below).
func probeTIOCSTI(args []string) error {
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer ptm.Close()
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		return err
	}
	n, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		return err
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	defer pts.Close()
	cmd := exec.Command("/proc/self/exe", append([]string{"probe", "ctty-sti"}, args...)...)
	cmd.Stdin, cmd.Stderr = pts, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("child: %v", err)
	}
	if line := strings.TrimSpace(string(out)); line != "ok" {
		return verbatim(line)
	}
	return nil
}

// verbatim is a result a child probe already formatted.
type verbatim string

func (v verbatim) Error() string { return string(v) }

// probeCttySTI pushes a byte into its controlling terminal's input; with
// "high" it sets bits above 32 in the command, which the kernel ignores.
func probeCttySTI(args []string) error {
	cmd := uintptr(unix.TIOCSTI)
	if len(args) > 0 && args[0] == "high" {
		cmd |= 1 << 32
	}
	b := byte('x')
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, 0, cmd, uintptr(unsafe.Pointer(&b)))
	if errno != 0 {
		return errno
	}
	return nil
}

// probeTunnel CONNECTs through $HTTPS_PROXY to args[0] and, when the
// tunnel opens, echoes one line through it; the result is
// "status LINE echo LINE".
func probeTunnel(args []string) error {
	proxy := strings.TrimPrefix(os.Getenv("HTTPS_PROXY"), "http://")
	c, err := net.DialTimeout("tcp", proxy, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", args[0], args[0])
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	status := strings.TrimSpace(line)
	if !strings.Contains(line, " 200 ") {
		return verbatim("status " + status)
	}
	for l, _ := br.ReadString('\n'); strings.TrimSpace(l) != ""; l, _ = br.ReadString('\n') {
	}
	fmt.Fprintf(c, "ping\n")
	echo, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	return verbatim("status " + status + " echo " + strings.TrimSpace(echo))
}

func probeStatus([]string) error {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "NoNewPrivs") || strings.HasPrefix(l, "Seccomp:") || strings.HasPrefix(l, "CapEff") {
			fmt.Println(strings.Join(strings.Fields(l), " "))
		}
	}
	return nil
}

// probeForks starts sleeping children until fork fails (bounded by
// args[0]) and reports how many it got.
func probeForks(args []string) error {
	limit := atoi(args[0])
	for i := 0; i < limit; i++ {
		cmd := exec.Command("/bin/sleep", "60")
		if err := cmd.Start(); err != nil {
			fmt.Println("forked", i)
			return err
		}
	}
	fmt.Println("forked", limit)
	return nil
}

// probeAlloc touches args[0] MiB, one page at a time.
func probeAlloc(args []string) error {
	mib := atoi(args[0])
	var keep [][]byte
	for i := 0; i < mib; i++ {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		keep = append(keep, b)
	}
	fmt.Println("allocated", len(keep))
	return nil
}

// probeSleep writes its pid (as the host sees it: the pid file is read
// by the test outside the pid namespace through /proc of the child) and
// sleeps.
func probeSleep(args []string) error {
	cmd := exec.Command("/bin/sleep", "600")
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := os.WriteFile(args[0], []byte("started"), 0o644); err != nil {
		return err
	}
	return cmd.Wait()
}
