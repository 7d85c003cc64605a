//go:build linux

package jailinit

//go:generate go run ../seccompgen -o seccomp_filters_linux.go

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/sandbox-dev/sandbox/jail_linux/internal/seccomprules"
	"golang.org/x/sys/unix"
)

// archPrograms are one GOARCH's filters (seccomp_filters_linux.go).
type archPrograms struct {
	arch  string
	progs [][]byte
}

// programsFor returns the embedded filters of arch.
func programsFor(arch string) ([][]byte, bool) {
	for _, p := range seccompPrograms {
		if p.arch == arch {
			return p.progs, true
		}
	}
	return nil, false
}

// SeccompProgram returns the embedded filter for this GOARCH and variant
// as sock_filter instructions.
func SeccompProgram(v seccomprules.Variant) ([]unix.SockFilter, error) {
	progs, ok := programsFor(runtime.GOARCH)
	if !ok || int(v) >= len(progs) {
		return nil, fmt.Errorf("%w: no seccomp filter for %s", ErrLayer, runtime.GOARCH)
	}
	raw := progs[v]
	const size = int(unsafe.Sizeof(unix.SockFilter{}))
	if len(raw) == 0 || len(raw)%size != 0 {
		return nil, fmt.Errorf("bug: seccomp program for %s has %d bytes", runtime.GOARCH, len(raw))
	}
	out := make([]unix.SockFilter, len(raw)/size)
	for i := range out {
		b := raw[i*size:]
		out[i] = unix.SockFilter{
			Code: uint16(b[0]) | uint16(b[1])<<8,
			Jt:   b[2],
			Jf:   b[3],
			K:    uint32(b[4]) | uint32(b[5])<<8 | uint32(b[6])<<16 | uint32(b[7])<<24,
		}
	}
	return out, nil
}

// loadSeccomp installs the filter on the calling thread only (no TSYNC):
// the init runs it on the locked thread that then forks the command.
// no_new_privs must already be set.
func loadSeccomp(v seccomprules.Variant) error {
	prog, err := SeccompProgram(v)
	if err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0,
		uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}
