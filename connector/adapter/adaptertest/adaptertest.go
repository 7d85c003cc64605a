// Package adaptertest is the install test suite every agent integration
// runs (RunInstallTests): from each starting state of the project, init
// writes exactly the golden bytes, a second init changes nothing (neither
// the files nor the recorded change), init from a moved binary replaces
// the old command, and uninstall gives back the project as it was, byte
// for byte and mode for mode, files and folders init created removed; a
// refused init changes nothing at all.
package adaptertest

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/install/installtest"
)

// Integration is what the suite needs of one agent's integration.
type Integration struct {
	// Install is the integration under test.
	Install install.Integration
	// Files are the project files it writes, relative to the root.
	Files []string
	// Cases are the project's starting states; each installs cleanly.
	Cases []Case
	// Golden names the golden file (under testdata/) of file rel after
	// case c's install; nil: the case's name and the file's extension.
	// The project root is written /work/project there.
	Golden func(c, rel string) string
	// Update rewrites the golden files (the package's -update flag).
	Update bool
	// Check asserts what the installed files hold for env (its Exe and
	// root), beyond the golden bytes; files are keyed like Files. May be
	// nil.
	Check func(t *testing.T, env install.Env, files map[string][]byte)
	// Refusals are starting states init must refuse, changing nothing.
	Refusals []Refusal
}

// Case is a starting state: file contents by path relative to the root
// (absent files are not there; "" is an empty file).
type Case struct {
	Name  string
	Files map[string]string
}

// Refusal is a starting state init refuses with an error that is Err
// (errors.Is) and whose text holds Where.
type Refusal struct {
	Name  string
	Files map[string]string
	Err   error
	Where string
}

// MovedExe is the binary a second init runs from in the moved-binary
// test: a space in it makes the hook commands quote it.
const MovedExe = "/new place/sandbox"

// RunInstallTests runs the suite on the integration newIntegration
// describes (called once per subtest).
func RunInstallTests(t *testing.T, newIntegration func() Integration) {
	t.Helper()
	in := newIntegration()
	if len(in.Cases) == 0 || len(in.Files) == 0 {
		t.Fatal("adaptertest: an integration needs Files and at least one Case")
	}
	for _, c := range in.Cases {
		t.Run("RoundTrip/"+c.Name, func(t *testing.T) { roundTrip(t, newIntegration(), c) })
		t.Run("MovedBinary/"+c.Name, func(t *testing.T) { movedBinary(t, newIntegration(), c) })
	}
	for _, r := range in.Refusals {
		t.Run("Refuses/"+r.Name, func(t *testing.T) { refuses(t, newIntegration(), r) })
	}
}

func roundTrip(t *testing.T, in Integration, c Case) {
	env := installtest.Project(t, c.Files)
	root := env.Folder.Root
	before := Snapshot(t, root)
	ch, err := in.Install.Install(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	installed := Snapshot(t, root)
	files := map[string][]byte{}
	for _, rel := range in.Files {
		e, ok := installed[rel]
		if !ok || e.Dir {
			t.Fatalf("%s is not a file after init", rel)
		}
		files[rel] = e.Data
		name := defaultGolden(c.Name, rel)
		if in.Golden != nil {
			name = in.Golden(c.Name, rel)
		}
		installtest.Golden(t, in.Update, name, bytes.ReplaceAll(e.Data, []byte(root), []byte("/work/project")))
	}
	for rel := range c.Files {
		if b, a := before[rel], installed[rel]; a.Mode != b.Mode {
			t.Errorf("init changed %s's mode from %v to %v", rel, b.Mode, a.Mode)
		}
	}
	if in.Check != nil {
		in.Check(t, env, files)
	}
	again, err := in.Install.Install(env, ch)
	if err != nil || !bytes.Equal(again, ch) {
		t.Fatalf("a second init changed the record: %v\n%s\n%s", err, ch, again)
	}
	if diff := Diff(installed, Snapshot(t, root)); diff != "" {
		t.Fatalf("a second init changed the project: %s", diff)
	}
	if err := in.Install.Uninstall(env, ch); err != nil {
		t.Fatal(err)
	}
	if diff := Diff(before, Snapshot(t, root)); diff != "" {
		t.Errorf("uninstall did not give the project back: %s", diff)
	}
}

// movedBinary: init from another binary replaces every command of the
// first, and uninstall of that record gives the project back.
func movedBinary(t *testing.T, in Integration, c Case) {
	env := installtest.Project(t, c.Files)
	root := env.Folder.Root
	before := Snapshot(t, root)
	ch, err := in.Install.Install(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	env.Exe = MovedExe
	ch2, err := in.Install.Install(env, ch)
	if err != nil {
		t.Fatal(err)
	}
	after := Snapshot(t, root)
	files := map[string][]byte{}
	var all []byte
	for _, rel := range in.Files {
		files[rel] = after[rel].Data
		all = append(all, after[rel].Data...)
	}
	if bytes.Contains(all, []byte(installtest.Exe)) || !bytes.Contains(all, []byte(MovedExe)) {
		t.Errorf("after init from %s:\n%s", MovedExe, all)
	}
	if in.Check != nil {
		in.Check(t, env, files)
	}
	if err := in.Install.Uninstall(env, ch2); err != nil {
		t.Fatal(err)
	}
	if diff := Diff(before, Snapshot(t, root)); diff != "" {
		t.Errorf("uninstall did not give the project back: %s", diff)
	}
}

func refuses(t *testing.T, in Integration, r Refusal) {
	env := installtest.Project(t, r.Files)
	before := Snapshot(t, env.Folder.Root)
	_, err := in.Install.Install(env, nil)
	if !errors.Is(err, r.Err) || !strings.Contains(fmtErr(err), r.Where) {
		t.Fatalf("err = %v, want %v at %q", err, r.Err, r.Where)
	}
	if diff := Diff(before, Snapshot(t, env.Folder.Root)); diff != "" {
		t.Errorf("a refused init changed the project: %s", diff)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func defaultGolden(c, rel string) string { return c + filepath.Ext(rel) }

// Entry is one file or folder of a snapshot.
type Entry struct {
	Dir  bool
	Mode fs.FileMode
	Data []byte
}

// Snapshot is every file and folder under root (root itself excluded),
// by slash-separated path relative to root.
func Snapshot(t testing.TB, root string) map[string]Entry {
	t.Helper()
	out := map[string]Entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		e := Entry{Dir: d.IsDir(), Mode: fi.Mode()}
		if !e.Dir {
			if e.Data, err = os.ReadFile(p); err != nil {
				return err
			}
		}
		out[filepath.ToSlash(rel)] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Diff says how two snapshots differ ("" when they are the same).
func Diff(want, got map[string]Entry) string {
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[p]
		w := want[p]
		switch {
		case !ok:
			b.WriteString("\n" + p + " is gone")
		case g.Dir != w.Dir || g.Mode != w.Mode:
			b.WriteString("\n" + p + ": mode " + g.Mode.String() + ", was " + w.Mode.String())
		case !bytes.Equal(g.Data, w.Data):
			b.WriteString("\n" + p + " differs:\n--- now ---\n" + string(g.Data) + "\n--- was ---\n" + string(w.Data))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[p]; !ok {
			b.WriteString("\n" + p + " was added")
		}
	}
	return b.String()
}

// Command is the hook command line the suite's checks expect init to
// write for exe (installtest.Exe or MovedExe) and agent, spelled out
// rather than computed by the code under test.
func Command(exe, agent string) string {
	switch exe {
	case installtest.Exe:
		return installtest.Exe + " hook " + agent
	case MovedExe:
		return "'" + MovedExe + "' hook " + agent
	}
	panic("adaptertest.Command: not one of the suite's binaries: " + exe)
}
