//go:build linux

package resident

import (
	"bytes"
	"os"
	"os/user"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// rssFile is this process's resident file-backed memory (kB).
func rssFile(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "RssFile:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// TestRelease: the executable's read-only mappings go, the process runs
// on (its code faults back in), and its data is untouched.
func TestRelease(t *testing.T) {
	data := bytes.Repeat([]byte("keep me"), 1000) // heap, never released
	before := rssFile(t)
	n, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("released nothing: the executable's mappings were not found")
	}
	after := rssFile(t)
	t.Logf("RssFile %d kB -> %d kB (%d kB of mappings released)", before, after, n>>10)
	if after >= before {
		t.Errorf("RssFile %d kB -> %d kB: nothing given back", before, after)
	}
	if !bytes.Equal(data, bytes.Repeat([]byte("keep me"), 1000)) || strings.ToUpper("ok") != "OK" {
		t.Fatal("the process's data or code changed")
	}
	// through the dynamic loader's relocated pointers when the test binary
	// is linked with libc (cgo): a dropped RELRO page would jump to 0
	if _, err := user.Current(); err != nil {
		t.Fatal(err)
	}
}

// TestMappingsKeepWritten: a read-only mapping with pages of its own
// (Anonymous > 0: RELRO, written before it was made read-only) or without
// the count is never released.
func TestMappingsKeepWritten(t *testing.T) {
	smaps := []byte(`00400000-00a00000 r-xp 00000000 fd:01 1234 /x/sandbox
Size:               6144 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me
00a00000-00a01000 r--p 00600000 fd:01 1234 /x/sandbox
Size:                  4 kB
Anonymous:             4 kB
00a01000-00a02000 r--p 00601000 fd:01 1234 /x/sandbox
Size:                  4 kB
`)
	ms := mappings(smaps)
	if len(ms) != 3 || ms[0].anonymous != 0 || ms[1].anonymous != 4 || ms[2].anonymous != -1 {
		t.Fatalf("mappings: %+v", ms)
	}
}

func TestReadOnlyMappingOf(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"00400000-00a00000 r-xp 00000000 fd:01 1234 /x/sandbox", true},
		{"00a00000-00c00000 r--p 00600000 fd:01 1234 /x/sandbox", true},
		{"00c00000-00d00000 rw-p 00800000 fd:01 1234 /x/sandbox", false}, // data
		{"00400000-00a00000 r-xs 00000000 fd:01 1234 /x/sandbox", false}, // shared
		{"00400000-00a00000 r-xp 00000000 fd:01 999 /x/other", false},    // another file
		{"00400000-00a00000 r-xp 00000000 fd:02 1234 /x/sandbox", false}, // another device
		{"00a00000-00400000 r-xp 00000000 fd:01 1234 /x/sandbox", false}, // empty range
		{"7ffc0000-7ffc1000 r-xp 00000000 00:00 0 [vdso]", false},
		{"garbage", false},
	} {
		st := statFor(0xfd, 0x01, 1234)
		_, _, ok := readOnlyMappingOf([]byte(tc.line), st)
		if ok != tc.ok {
			t.Errorf("%q: %v, want %v", tc.line, ok, tc.ok)
		}
	}
}

func statFor(maj, min uint32, ino uint64) (st unix.Stat_t) {
	st.Dev = unix.Mkdev(maj, min)
	st.Ino = ino
	return st
}
