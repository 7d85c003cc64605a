//go:build linux

package jail_linux

import (
	"github.com/sandbox-dev/sandbox/jail_linux/internal/jailinit"
	"os"
	"strconv"
	"strings"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/sandbox-dev/sandbox/jail_linux/internal/seccomprules"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"golang.org/x/sys/unix"
)

// facts are the kernel features Start relies on, detected once.
type facts struct {
	euid        int
	kernel      string
	landlockABI int
	seccomp     bool
	seccompWhy  string
	userns      bool   // a user namespace can be created (unprivileged)
	usernsWhy   string // why not
	cg          cgroupFacts
}

// namespaces reports whether mount, pid and network namespaces can be
// made: as root directly, otherwise inside a new user namespace.
func (f *facts) namespaces() bool { return f.euid == 0 || f.userns }

// userNS reports whether a jail with enf's namespaces makes them inside a
// user namespace of its own (not as root).
func (f *facts) userNS(enf jailspec.Enforce) bool {
	return f.euid != 0 && (enf.MountNS || enf.PidNS || enf.NetNS)
}

func detect() *facts {
	f := &facts{euid: os.Geteuid(), kernel: kernelRelease()}
	if v, err := ll.LandlockGetABIVersion(); err == nil {
		f.landlockABI = v
	}
	f.seccomp, f.seccompWhy = probeSeccomp()
	f.userns, f.usernsWhy = probeUserNS(f.euid)
	f.cg = probeCgroup(f.euid)
	return f
}

func kernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Release[:])
}

func probeSeccomp() (bool, string) {
	if _, err := jailinit.SeccompProgram(seccomprules.WithNetNS); err != nil {
		return false, err.Error()
	}
	if mode, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil || mode != 0 {
		return false, "seccomp is unavailable or already in strict mode"
	}
	action := uint32(unix.SECCOMP_RET_ERRNO)
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0,
		uintptr(unsafe.Pointer(&action)))
	if errno != 0 {
		return false, "the kernel has no seccomp filter mode (CONFIG_SECCOMP_FILTER): " + errno.Error()
	}
	return true, ""
}

// probeUserNS reads the sysctls that gate unprivileged user namespaces;
// Start still fails closed if the clone is refused for another reason.
func probeUserNS(euid int) (bool, string) {
	if euid == 0 {
		return false, "not needed: running as root"
	}
	if n, ok := readSysctl("user/max_user_namespaces"); ok && n == 0 {
		return false, "user.max_user_namespaces is 0"
	}
	if n, ok := readSysctl("kernel/unprivileged_userns_clone"); ok && n == 0 {
		return false, "kernel.unprivileged_userns_clone is 0"
	}
	if n, ok := readSysctl("kernel/apparmor_restrict_unprivileged_userns"); ok && n != 0 {
		return false, "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)"
	}
	return true, ""
}

func readSysctl(name string) (int64, bool) {
	b, err := os.ReadFile("/proc/sys/" + name)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}
