//go:build linux

package jailinit

import (
	"runtime"
	"testing"

	"github.com/sandbox-dev/sandbox/jail_linux/internal/seccomprules"
	"golang.org/x/sys/unix"
)

const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retKill  = unix.SECCOMP_RET_KILL_PROCESS
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retNOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
)

var nativeArch = map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}

// TestSeccompFilter runs the embedded program for this machine over
// adversarial syscall arguments.
func TestSeccompFilter(t *testing.T) {
	arch, ok := nativeArch[runtime.GOARCH]
	if !ok {
		t.Skip("no filter for " + runtime.GOARCH)
	}
	const hi = uint64(1) << 32
	tests := []struct {
		name    string
		nr      int
		args    []uint64
		netNS   uint32 // want with a network namespace
		noNetNS uint32 // want without (0: same)
	}{
		{"read", unix.SYS_READ, nil, retAllow, 0},
		{"ptrace", unix.SYS_PTRACE, nil, retEPERM, 0},
		{"process_vm_writev", unix.SYS_PROCESS_VM_WRITEV, nil, retEPERM, 0},
		{"pidfd_getfd", unix.SYS_PIDFD_GETFD, nil, retEPERM, 0},
		{"mount", unix.SYS_MOUNT, nil, retEPERM, 0},
		{"fsopen", unix.SYS_FSOPEN, nil, retEPERM, 0},
		{"move_mount", unix.SYS_MOVE_MOUNT, nil, retEPERM, 0},
		{"umount2", unix.SYS_UMOUNT2, nil, retEPERM, 0},
		{"setns", unix.SYS_SETNS, nil, retEPERM, 0},
		{"io_uring_setup", unix.SYS_IO_URING_SETUP, nil, retEPERM, 0},
		{"bpf", unix.SYS_BPF, nil, retEPERM, 0},
		{"keyctl", unix.SYS_KEYCTL, nil, retEPERM, 0},
		{"userfaultfd", unix.SYS_USERFAULTFD, nil, retEPERM, 0},
		{"open_by_handle_at", unix.SYS_OPEN_BY_HANDLE_AT, nil, retEPERM, 0},
		{"finit_module", unix.SYS_FINIT_MODULE, nil, retEPERM, 0},
		{"clone plain", unix.SYS_CLONE, []uint64{uint64(unix.SIGCHLD)}, retAllow, 0},
		{"clone thread", unix.SYS_CLONE, []uint64{unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_THREAD}, retAllow, 0},
		{"clone newuser", unix.SYS_CLONE, []uint64{unix.CLONE_NEWUSER | uint64(unix.SIGCHLD)}, retEPERM, 0},
		{"clone newns", unix.SYS_CLONE, []uint64{unix.CLONE_NEWNS}, retEPERM, 0},
		{"clone newnet high bits", unix.SYS_CLONE, []uint64{unix.CLONE_NEWNET | hi}, retEPERM, 0},
		{"clone newtime", unix.SYS_CLONE, []uint64{unix.CLONE_NEWTIME}, retEPERM, 0},
		{"clone3", unix.SYS_CLONE3, nil, retNOSYS, 0},
		{"unshare files", unix.SYS_UNSHARE, []uint64{unix.CLONE_FILES}, retAllow, 0},
		{"unshare newuser", unix.SYS_UNSHARE, []uint64{unix.CLONE_NEWUSER}, retEPERM, 0},
		{"unshare newcgroup", unix.SYS_UNSHARE, []uint64{unix.CLONE_NEWCGROUP}, retEPERM, 0},
		{"ioctl TCGETS", unix.SYS_IOCTL, []uint64{0, unix.TCGETS}, retAllow, 0},
		{"ioctl TIOCSTI", unix.SYS_IOCTL, []uint64{0, unix.TIOCSTI}, retEPERM, 0},
		{"ioctl TIOCSTI high bits", unix.SYS_IOCTL, []uint64{0, unix.TIOCSTI | hi}, retEPERM, 0},
		{"ioctl TIOCLINUX", unix.SYS_IOCTL, []uint64{0, unix.TIOCLINUX | 0xff00000000}, retEPERM, 0},
		{"personality query", unix.SYS_PERSONALITY, []uint64{0xffffffff}, retAllow, 0},
		{"personality linux", unix.SYS_PERSONALITY, []uint64{0}, retAllow, 0},
		{"personality linux high bits", unix.SYS_PERSONALITY, []uint64{hi}, retAllow, 0},
		{"personality no-randomize", unix.SYS_PERSONALITY, []uint64{0x0040000}, retEPERM, 0},
		{"personality read-implies-exec", unix.SYS_PERSONALITY, []uint64{0x0400000}, retEPERM, 0},
		{"personality linux32", unix.SYS_PERSONALITY, []uint64{8}, retEPERM, 0},
		{"personality all but one bit", unix.SYS_PERSONALITY, []uint64{0xfffffffe}, retEPERM, 0},
		{"socket unix", unix.SYS_SOCKET, []uint64{unix.AF_UNIX, unix.SOCK_STREAM}, retAllow, 0},
		{"socket tcp", unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_STREAM | unix.SOCK_CLOEXEC}, retAllow, 0},
		{"socket tcp6", unix.SYS_SOCKET, []uint64{unix.AF_INET6, unix.SOCK_STREAM}, retAllow, 0},
		{"socket udp", unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_DGRAM}, retAllow, retEPERM},
		{"socket udp6 nonblock", unix.SYS_SOCKET, []uint64{unix.AF_INET6, unix.SOCK_DGRAM | unix.SOCK_NONBLOCK}, retAllow, retEPERM},
		{"socket raw", unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_RAW}, retEPERM, 0},
		{"socket raw6 cloexec", unix.SYS_SOCKET, []uint64{unix.AF_INET6, unix.SOCK_RAW | unix.SOCK_CLOEXEC}, retEPERM, 0},
		{"socket inet packet", unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_PACKET}, retEPERM, 0},
		{"socket netlink", unix.SYS_SOCKET, []uint64{unix.AF_NETLINK, unix.SOCK_RAW}, retEPERM, 0},
		{"socket netlink high bits", unix.SYS_SOCKET, []uint64{unix.AF_NETLINK | hi, unix.SOCK_DGRAM}, retEPERM, 0},
		{"socket packet", unix.SYS_SOCKET, []uint64{unix.AF_PACKET, unix.SOCK_RAW}, retEPERM, 0},
		{"socket vsock", unix.SYS_SOCKET, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM}, retEPERM, 0},
		{"socket alg", unix.SYS_SOCKET, []uint64{unix.AF_ALG, unix.SOCK_SEQPACKET}, retEPERM, 0},
	}
	for vi, v := range seccomprules.Variants {
		prog, err := SeccompProgram(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				d := seccompData{nr: int32(tc.nr), arch: arch}
				copy(d.args[:], tc.args)
				want := tc.netNS
				if vi == int(seccomprules.WithoutNetNS) && tc.noNetNS != 0 {
					want = tc.noNetNS
				}
				got, err := runBPF(prog, d)
				if err != nil || got != want {
					t.Errorf("variant %d: got %#x (%v), want %#x", vi, got, err, want)
				}
			})
		}
		t.Run("foreign arch is killed", func(t *testing.T) {
			got, err := runBPF(prog, seccompData{nr: unix.SYS_READ, arch: unix.AUDIT_ARCH_I386})
			if err != nil || got != retKill {
				t.Errorf("i386 read: got %#x (%v), want kill", got, err)
			}
		})
		if runtime.GOARCH == "amd64" {
			t.Run("x32 syscalls are killed", func(t *testing.T) {
				got, err := runBPF(prog, seccompData{nr: unix.SYS_READ | 0x40000000, arch: arch})
				if err != nil || got != retKill {
					t.Errorf("x32 read: got %#x (%v), want kill", got, err)
				}
			})
		}
	}
}
