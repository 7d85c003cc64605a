//go:build linux

package launcher

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func init() {
	probes["list"] = probeList
	probes["mkdir"] = func(a []string) error { return os.Mkdir(a[0], 0o755) }
	probes["samedev"] = probeSameDev
	probes["mounts"] = probeMounts
}

// probeList succeeds when the directory can be opened and listed.
func probeList(a []string) error {
	names, err := os.ReadDir(a[0])
	if err == nil && len(names) > 0 {
		fmt.Fprintf(os.Stderr, "listed %d entries of %s\n", len(names), a[0])
	}
	return err
}

// probeSameDev succeeds when every path is on one device (one superblock).
func probeSameDev(a []string) error {
	var first unix.Stat_t
	for i, p := range a {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			return err
		}
		if i == 0 {
			first = st
		} else if st.Dev != first.Dev {
			return fmt.Errorf("%s is on device %d, %s on %d", p, st.Dev, a[0], first.Dev)
		}
	}
	return nil
}

// probeMounts succeeds when exactly a[1] mounts sit at the mount point a[0].
func probeMounts(a []string) error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 4 && fields[4] == a[0] {
			n++
		}
	}
	if want, _ := strconv.Atoi(a[1]); n != want {
		return fmt.Errorf("%d mounts at %s, want %s", n, a[0], a[1])
	}
	return nil
}

// TestJailHiddenDirs: every hidden directory, an alias of one through a
// symbolic link included, can be neither read, listed nor written; with
// namespaces they share one tmpfs, and the alias gets no second mount.
func TestJailHiddenDirs(t *testing.T) {
	e := newJailEnv(t)
	base := outsideScratch(t)
	rt := filepath.Join(base, "real", "rt")
	mustWrite(t, filepath.Join(rt, "secret"), "original")
	if err := os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "alias")); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(base, "alias", "rt")
	var tests []struct {
		name   string
		c      probeCase
		wantOK bool
		only   string // the mode the case applies to; "" for both
	}
	add := func(name string, wantOK bool, only, probe string, args ...string) {
		tests = append(tests, struct {
			name   string
			c      probeCase
			wantOK bool
			only   string
		}{name, probeCase{name, probe, args}, wantOK, only})
	}
	for _, d := range []struct{ name, dir string }{{"state", e.state}, {"runtime", rt}, {"alias", alias}} {
		add(d.name+" read", false, "", "read", filepath.Join(d.dir, filepath.Base(secretOf(e, d.dir))))
		// Landlock alone lets a hidden directory's names be listed (the
		// parent's READ_DIR covers its whole hierarchy): namespaces only
		add(d.name+" list", false, "namespaces", "list", d.dir)
		add(d.name+" write", false, "", "write", filepath.Join(d.dir, "new"))
		add(d.name+" overwrite", false, "", "write", filepath.Join(d.dir, filepath.Base(secretOf(e, d.dir))))
		add(d.name+" mkdir", false, "", "mkdir", filepath.Join(d.dir, "sub"))
	}
	add("one tmpfs for all", true, "namespaces", "samedev", e.state, rt, alias)
	add("no second mount over the alias", true, "namespaces", "mounts", rt, "1")
	cases := make([]probeCase, len(tests))
	for i, tc := range tests {
		cases[i] = tc.c
	}
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			o := e.options(m, e.batchArgv(cases)...)
			o.Env = append(o.Env, "XDG_RUNTIME_DIR="+rt, "SSH_AUTH_SOCK="+alias)
			out, _ := runJailed(t, o)
			got := batchResults(t, out, len(cases))
			for i, tc := range tests {
				if tc.only != "" && tc.only != m.name {
					continue
				}
				t.Run(tc.name, func(t *testing.T) {
					if (got[i] == "ok") != tc.wantOK {
						t.Errorf("%s %v: got %q, want ok=%v", tc.c.probe, tc.c.args, got[i], tc.wantOK)
					}
				})
			}
			for _, p := range []string{e.secret, filepath.Join(rt, "secret")} {
				if b, err := os.ReadFile(p); err != nil || string(b) != map[bool]string{true: "secret", false: "original"}[p == e.secret] {
					t.Errorf("%s changed: %q %v", p, b, err)
				}
			}
			if entries, _ := os.ReadDir(rt); len(entries) != 1 {
				t.Errorf("%s holds %d entries, want only the secret", rt, len(entries))
			}
		})
	}
}

// secretOf is the file the test placed in a hidden directory.
func secretOf(e *testJail, dir string) string {
	if dir == e.state {
		return e.secret
	}
	return filepath.Join(dir, "secret")
}
