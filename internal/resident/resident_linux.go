//go:build linux

package resident

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Release drops this process's mappings of its executable's read-only
// segments (code, read-only data), and asks the kernel not to read ahead
// at the next faults there (MADV_RANDOM: a page evicted meanwhile is read
// back alone). It does not make those faults map less: a page still in
// the page cache comes back with its whole folio, or the 64 KiB around
// it (fault-around, which MADV_RANDOM leaves on; measured on Linux 6.18),
// so what an idle process maps again depends on the folios the binary is
// cached in (AGENTS-FLEET.md, Figures). Writable segments are never
// touched, nor a read-only one holding pages of its own (a dynamically
// linked binary's RELRO, written by the loader and then made read-only:
// dropping those would bring back the file's unrelocated bytes). It
// returns the bytes it released the mappings of.
func Release() (int64, error) {
	var exe unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &exe); err != nil {
		return 0, err
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	var released int64
	for _, m := range mappings(smaps) {
		start, end, ok := readOnlyMappingOf(m.header, exe)
		if !ok || m.anonymous != 0 {
			continue
		}
		for _, advice := range []int{unix.MADV_RANDOM, unix.MADV_DONTNEED} {
			if _, _, e := unix.Syscall(unix.SYS_MADVISE, start, end-start, uintptr(advice)); e != 0 {
				return released, e
			}
		}
		released += int64(end - start)
	}
	return released, nil
}

// mapping is one entry of /proc/self/smaps: its header line and its
// Anonymous count (kB; -1 when the entry had none).
type mapping struct {
	header    []byte
	anonymous int64
}

func mappings(smaps []byte) []mapping {
	var ms []mapping
	for _, line := range bytes.Split(smaps, []byte{'\n'}) {
		if v, ok := bytes.CutPrefix(line, []byte("Anonymous:")); ok && len(ms) > 0 {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
			if err != nil {
				n = -1
			}
			ms[len(ms)-1].anonymous = n
			continue
		}
		// a header starts with the range; the fields' lines with a name
		if i := bytes.IndexByte(line, ' '); i > 0 && bytes.IndexByte(line[:i], '-') > 0 && !bytes.HasSuffix(line[:i], []byte(":")) {
			ms = append(ms, mapping{header: line, anonymous: -1})
		}
	}
	return ms
}

// readOnlyMappingOf parses one line of /proc/self/maps
// ("START-END PERMS OFFSET MAJ:MIN INODE PATH") and reports the range when
// it maps the file exe, private and not writable.
func readOnlyMappingOf(line []byte, exe unix.Stat_t) (start, end uintptr, ok bool) {
	f := bytes.Fields(line)
	if len(f) < 6 {
		return 0, 0, false
	}
	perms := f[1]
	if len(perms) != 4 || perms[1] != '-' || perms[3] != 'p' {
		return 0, 0, false
	}
	ino, err := strconv.ParseUint(string(f[4]), 10, 64)
	if err != nil || ino != exe.Ino {
		return 0, 0, false
	}
	majS, minS, found := bytes.Cut(f[3], []byte{':'})
	maj, err1 := strconv.ParseUint(string(majS), 16, 32)
	min, err2 := strconv.ParseUint(string(minS), 16, 32)
	if !found || err1 != nil || err2 != nil || unix.Mkdev(uint32(maj), uint32(min)) != exe.Dev {
		return 0, 0, false
	}
	s, e, found := bytes.Cut(f[0], []byte{'-'})
	a, err1 := strconv.ParseUint(string(s), 16, 64)
	b, err2 := strconv.ParseUint(string(e), 16, 64)
	if !found || err1 != nil || err2 != nil || b <= a {
		return 0, 0, false
	}
	return uintptr(a), uintptr(b), true
}
