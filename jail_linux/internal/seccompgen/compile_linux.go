//go:build linux && cgo

package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sandbox-dev/sandbox/jail_linux/internal/seccomprules"
	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

var scmpArch = map[string]string{"amd64": "amd64", "arm64": "arm64"}

// Compile builds the filter for one GOARCH and variant: default allow,
// the deny list, and a kill for any other architecture (i386 via int 0x80,
// x32 on amd64).
func Compile(goarch string, v seccomprules.Variant) ([]byte, error) {
	f, err := newFilter(goarch)
	if err != nil {
		return nil, err
	}
	defer f.Release()
	for _, r := range seccomprules.Rules(v) {
		if err := addRule(f, r); err != nil {
			return nil, err
		}
	}
	return export(f)
}

// export writes the program through a memfd: ExportBPFMem needs
// libseccomp 2.6, Debian 12 has 2.5.
func export(f *seccomp.ScmpFilter) ([]byte, error) {
	fd, err := unix.MemfdCreate("seccomp", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd: %w", err)
	}
	file := os.NewFile(uintptr(fd), "seccomp")
	defer file.Close()
	if err := f.ExportBPF(file); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(file)
}

func newFilter(goarch string) (*seccomp.ScmpFilter, error) {
	arch, err := seccomp.GetArchFromString(scmpArch[goarch])
	if err != nil {
		return nil, fmt.Errorf("arch %s: %w", goarch, err)
	}
	f, err := seccomp.NewFilter(seccomp.ActAllow)
	if err != nil {
		return nil, err
	}
	native, err := seccomp.GetNativeArch()
	if err == nil && native != arch {
		err = f.AddArch(arch)
		if err == nil {
			err = f.RemoveArch(native)
		}
	}
	if err == nil {
		err = f.SetBadArchAction(seccomp.ActKillProcess)
	}
	if err == nil {
		err = f.SetNoNewPrivsBit(false) // the init sets it itself
	}
	if err == nil {
		err = f.SetOptimize(2) // binary tree: hot syscalls pass in a few jumps
	}
	if err != nil {
		f.Release()
		return nil, err
	}
	return f, nil
}

func addRule(f *seccomp.ScmpFilter, r seccomprules.Rule) error {
	call, err := seccomp.GetSyscallFromName(r.Syscall)
	if err != nil {
		return fmt.Errorf("syscall %s: %w", r.Syscall, err)
	}
	act := seccomp.ActErrno.SetReturnCode(int16(r.Errno))
	if len(r.Conds) == 0 {
		return f.AddRule(call, act)
	}
	conds := make([]seccomp.ScmpCondition, 0, len(r.Conds))
	for _, c := range r.Conds {
		sc, err := condition(c)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Syscall, err)
		}
		conds = append(conds, sc)
	}
	if err := f.AddRuleConditional(call, act, conds); err != nil {
		return fmt.Errorf("%s %+v: %w", r.Syscall, r.Conds, err)
	}
	return nil
}

func condition(c seccomprules.Cond) (seccomp.ScmpCondition, error) {
	return seccomp.MakeCondition(c.Arg, seccomp.CompareMaskedEqual, c.Mask, c.Value)
}
