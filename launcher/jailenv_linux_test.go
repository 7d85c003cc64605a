//go:build linux

package launcher

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// jailMode is one way of running the jail: everything the machine has, or
// Landlock without namespaces (the degraded path of machines without user
// namespaces).
type jailMode struct {
	name    string
	disable []Layer
}

var jailModes = []jailMode{
	{name: "namespaces"},
	{name: "landlock-only", disable: []Layer{LayerMount, LayerPid, LayerNetwork}},
}

// testJail is a project with a bus, git hooks and agent config, and a
// per-user state dir with a secret, for the jail tests.
type testJail struct {
	project folder.Folder
	state   string // per-user state dir
	secret  string // a file in it
	probe   string // this test binary
}

func requireJail(t testing.TB) {
	t.Helper()
	testenv.RequireRoot(t)
	r := Probe()
	for _, l := range []Layer{LayerLandlock, LayerSeccomp, LayerMount, LayerCgroup} {
		if !r.OK(l) {
			testenv.Skip(t, "jail layer "+string(l)+" is not available: "+r.Layer(l).Detail)
		}
	}
}

func newJailEnv(t *testing.T) *testJail { return newJailEnvB(t) }

// outsideScratch is a temporary dir outside /tmp, /var/tmp and /dev/shm,
// which every jail sees as fresh and empty: what a test places there is
// still there in the jail. The jail tests run as root.
func outsideScratch(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("/run", "sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func newJailEnvB(t testing.TB) *testJail {
	t.Helper()
	requireJail(t)
	base := t.TempDir()
	// the state dir lies outside the scratch trees, which the jail
	// replaces with its own (a state dir under /tmp would vanish there
	// and prove nothing about hiding it)
	stateHome := filepath.Join(outsideScratch(t), "state")
	t.Setenv("XDG_STATE_HOME", stateHome)
	e := &testJail{state: filepath.Join(stateHome, "sandbox")}
	e.secret = filepath.Join(e.state, "key")
	mustWrite(t, e.secret, "secret")
	root := filepath.Join(base, "project")
	for _, rel := range []string{".git/hooks/pre-commit", ".git/config", ".mcp.json", ".claude/settings.json", "src/main.go"} {
		mustWrite(t, filepath.Join(root, rel), "original")
	}
	e.project = busFolder(t, root)
	var err error
	if e.probe, err = os.Executable(); err != nil {
		t.Fatal(err)
	}
	return e
}

// busFolder makes root a project folder with a bus (every directory of
// the layout) and a policy file.
func busFolder(t testing.TB, root string) folder.Folder {
	t.Helper()
	f, err := folder.New(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Subdirs() {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, f.Policy(), "version: 1\n")
	return f
}

func mustWrite(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// options are the Run options of a probe in mode m.
func (e *testJail) options(m jailMode, argv ...string) Options {
	return Options{
		Folder:        e.project,
		Argv:          argv,
		Env:           append(os.Environ(), probeEnv+"=1"),
		Disable:       m.disable,
		AllowDegraded: m.disable,
		Stdin:         strings.NewReader(""),
	}
}

// probeArgv runs this test binary as a probe.
func (e *testJail) probeArgv(mode string, args ...string) []string {
	return append([]string{e.probe, "probe", mode}, args...)
}

// runJailed runs o to the end (bounded) and returns the command's output.
func runJailed(t *testing.T, o Options) (string, Result) {
	t.Helper()
	var out bytes.Buffer
	o.Stdout, o.Stderr = &out, &out
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("Run %v: %v\n%s", o.Argv, err, out.String())
	}
	return out.String(), res
}

// probeCase is one probe of a batch.
type probeCase struct {
	name  string
	probe string
	args  []string
}

// batchArgv runs all cases as one batch probe.
func (e *testJail) batchArgv(cases []probeCase) []string {
	argv := []string{e.probe, "probe", "batch"}
	for i, c := range cases {
		if i > 0 {
			argv = append(argv, ";")
		}
		argv = append(append(argv, c.probe), c.args...)
	}
	return argv
}

// batchResults maps each case's index to its result line; every one of
// the n cases must have reported.
func batchResults(t *testing.T, out string, n int) map[int]string {
	t.Helper()
	res := parseBatch(out)
	if len(res) != n {
		t.Fatalf("batch reported %d of %d probes:\n%s", len(res), n, out)
	}
	return res
}

func parseBatch(out string) map[int]string {
	res := map[int]string{}
	for _, l := range strings.Split(out, "\n") {
		var n int
		if _, err := fmt.Sscanf(l, "#%d ", &n); err == nil {
			res[n] = strings.TrimSpace(l[strings.IndexByte(l, ' ')+1:])
		}
	}
	return res
}

// A jailed go build works: the user's Go cache lives in the home, which
// the jail keeps read-only, so jailed commands get a cache of their own in
// the temp dir (without it every go build and go test in the jail failed
// with "permission denied"), and the user's cache is not written.
func TestJailGoBuildHasItsOwnCache(t *testing.T) {
	e := newJailEnv(t)
	goBin := testenv.RequireCommand(t, "go")
	home := fakeHome(t)
	userCache := filepath.Join(home, ".cache", "go-build")
	mustWrite(t, filepath.Join(e.project.Root, "hello", "go.mod"), "module example.com/hello\n\ngo 1.21\n")
	mustWrite(t, filepath.Join(e.project.Root, "hello", "main.go"), "package main\n\nfunc main() { println(\"built\") }\n")
	o := e.options(jailModes[0], goBin, "run", "-C", filepath.Join(e.project.Root, "hello"), ".")
	o.Env = append(withHome(o.Env, home), "GOTOOLCHAIN=local", "GOFLAGS=", "GOCACHE="+userCache)
	out, res := runJailed(t, o)
	if res.Code != 0 || !strings.Contains(out, "built") {
		t.Fatalf("go run in the jail: exit %d:\n%s", res.Code, out)
	}
	if entries, _ := os.ReadDir(userCache); len(entries) != 0 {
		t.Errorf("the jailed build wrote the user's cache %s", userCache)
	}
}
