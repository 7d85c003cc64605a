//go:build linux

package jailinit

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// seccompData is the kernel's struct seccomp_data.
type seccompData struct {
	nr   int32
	arch uint32
	args [6]uint64
}

func (d seccompData) bytes() []byte {
	b := make([]byte, 64)
	binary.LittleEndian.PutUint32(b[0:], uint32(d.nr))
	binary.LittleEndian.PutUint32(b[4:], d.arch)
	for i, a := range d.args {
		binary.LittleEndian.PutUint64(b[16+8*i:], a)
	}
	return b
}

// runBPF interprets a classic-BPF seccomp program over d, with the
// instructions libseccomp emits (loads, jumps, and, return); anything else
// is an error, so that a new libseccomp cannot slip untested code in.
func runBPF(prog []unix.SockFilter, d seccompData) (uint32, error) {
	data := d.bytes()
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			if int(in.K)+4 > len(data) {
				return 0, fmt.Errorf("load out of range at %d", pc)
			}
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_ALU | unix.BPF_AND | unix.BPF_K:
			acc &= in.K
		case unix.BPF_JMP | unix.BPF_JA:
			pc += int(in.K)
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K:
			pc += jump(acc == in.K, in)
		case unix.BPF_JMP | unix.BPF_JGT | unix.BPF_K:
			pc += jump(acc > in.K, in)
		case unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K:
			pc += jump(acc >= in.K, in)
		case unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K:
			pc += jump(acc&in.K != 0, in)
		case unix.BPF_RET | unix.BPF_K:
			return in.K, nil
		default:
			return 0, fmt.Errorf("unsupported instruction %#x at %d", in.Code, pc)
		}
	}
	return 0, fmt.Errorf("program fell off its end")
}

func jump(cond bool, in unix.SockFilter) int {
	if cond {
		return int(in.Jt)
	}
	return int(in.Jf)
}
