//go:build linux

// Package seccomprules is the jail's syscall deny list as plain data:
// which syscalls (and which argument values) fail, and with which errno.
// The generator in ../seccompgen compiles it with libseccomp into the
// arch-checked BPF programs that jail_linux embeds, and the jail's tests
// check those programs against it.
package seccomprules

import "golang.org/x/sys/unix"

// Cond holds when argument Arg (0-based) masked with Mask equals Value.
// A rule's conditions must all hold; libseccomp allows one per argument.
type Cond struct {
	Arg   uint
	Mask  uint64
	Value uint64
}

// Rule makes Syscall fail with Errno when every Cond holds (no Cond:
// always).
type Rule struct {
	Syscall string
	Errno   unix.Errno
	Conds   []Cond
}

// NamespaceFlags are the clone/unshare flags that create namespaces.
const NamespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
	unix.CLONE_NEWTIME

// sockTypeMask is SOCK_TYPE_MASK: the type without SOCK_NONBLOCK and
// SOCK_CLOEXEC.
const sockTypeMask = 0xf

// Variant selects the network part of the filter.
type Variant int

// Variants: with a network namespace the jail may use UDP on its own
// loopback; without one, UDP (and ICMP "ping" sockets) are refused so that
// TCP to the proxy, which Landlock restricts, is the only way out.
const (
	WithNetNS Variant = iota
	WithoutNetNS
)

// Variants lists every variant, in the order the generator emits them.
var Variants = []Variant{WithNetNS, WithoutNetNS}

// Rules returns the deny list for variant v.
func Rules(v Variant) []Rule {
	r := denyAlways()
	r = append(r, namespaceRules()...)
	r = append(r, ioctlRules()...)
	r = append(r, personalityRules()...)
	r = append(r, socketRules(v)...)
	return append(r, Rule{Syscall: "clone3", Errno: unix.ENOSYS})
}

// AlwaysDenied are refused whatever their arguments.
var AlwaysDenied = []string{
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd",
	"mount", "umount2", "pivot_root", "chroot", "setns",
	"open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"acct", "swapon", "swapoff", "reboot", "syslog", "quotactl", "quotactl_fd",
	"open_by_handle_at", "name_to_handle_at",
}

func denyAlways() []Rule {
	rules := make([]Rule, 0, len(AlwaysDenied))
	for _, name := range AlwaysDenied {
		rules = append(rules, Rule{Syscall: name, Errno: unix.EPERM})
	}
	return rules
}

// namespaceRules refuse clone and unshare with any namespace flag: one
// rule per flag, each a masked test of the flags argument (argument 0 of
// both on amd64 and arm64).
func namespaceRules() []Rule {
	var rules []Rule
	for bit := uint64(1); bit != 0; bit <<= 1 {
		if NamespaceFlags&bit == 0 {
			continue
		}
		c := []Cond{{Arg: 0, Mask: bit, Value: bit}}
		rules = append(rules,
			Rule{Syscall: "clone", Errno: unix.EPERM, Conds: c},
			Rule{Syscall: "unshare", Errno: unix.EPERM, Conds: c})
	}
	return rules
}

// ioctlRules refuse TIOCSTI and TIOCLINUX. The kernel reads the command
// as a 32-bit int, so the mask keeps only the low 32 bits: high bits set
// by the caller cannot slip past the comparison.
func ioctlRules() []Rule {
	var rules []Rule
	for _, cmd := range []uint64{unix.TIOCSTI, unix.TIOCLINUX} {
		rules = append(rules, Rule{Syscall: "ioctl", Errno: unix.EPERM,
			Conds: []Cond{{Arg: 1, Mask: 0xffffffff, Value: cmd}}})
	}
	return rules
}

// PersonalityAllowed are the personality(2) arguments the jail may pass:
// PER_LINUX and the query value 0xffffffff. Anything else (READ_IMPLIES_EXEC,
// ADDR_NO_RANDOMIZE, ...) fails.
var PersonalityAllowed = []uint64{0, 0xffffffff}

// personalityRules refuse every 32-bit value (the kernel reads an unsigned
// int) other than all zeros and all ones. libseccomp cannot AND two tests
// of one argument, so the complement is written as a union: a value that
// is neither has a 1 bit and a 0 bit, so pairing each bit i with bit 0
// catches it: (bit i set, bit 0 clear) or (bit 0 set, bit i clear).
func personalityRules() []Rule {
	var rules []Rule
	for i := uint64(1); i < 32; i++ {
		mask := uint64(1)<<i | 1
		for _, v := range []uint64{1 << i, 1} {
			rules = append(rules, Rule{Syscall: "personality", Errno: unix.EPERM,
				Conds: []Cond{{Arg: 0, Mask: mask, Value: v}}})
		}
	}
	return rules
}

// AllowedFamilies are the only socket families the jail may open.
var AllowedFamilies = []uint64{unix.AF_UNIX, unix.AF_INET, unix.AF_INET6}

// socketRules refuse every other family, raw and packet sockets, and
// without a network namespace UDP on inet sockets.
func socketRules(v Variant) []Rule {
	var rules []Rule
	for fam := uint64(0); fam < unix.AF_MAX; fam++ {
		if !allowedFamily(fam) {
			rules = append(rules, Rule{Syscall: "socket", Errno: unix.EPERM,
				Conds: []Cond{{Arg: 0, Mask: 0xffffffff, Value: fam}}})
		}
	}
	bad := []uint64{unix.SOCK_RAW, unix.SOCK_PACKET}
	if v == WithoutNetNS {
		bad = append(bad, unix.SOCK_DGRAM)
	}
	for _, fam := range []uint64{unix.AF_INET, unix.AF_INET6} {
		for _, typ := range bad {
			rules = append(rules, Rule{Syscall: "socket", Errno: unix.EPERM, Conds: []Cond{
				{Arg: 0, Mask: 0xffffffff, Value: fam},
				{Arg: 1, Mask: sockTypeMask, Value: typ},
			}})
		}
	}
	return rules
}

func allowedFamily(fam uint64) bool {
	for _, a := range AllowedFamilies {
		if a == fam {
			return true
		}
	}
	return false
}
