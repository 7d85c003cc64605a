package adaptertest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/adapter/adaptertest"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The seventh agent: everything an agent's package holds, in a few lines.
// Its hooks go into .fake/hooks.json ({"hooks": {EVENT: [ENTRY]}}), and
// its hook allows what it is asked and refuses what it cannot read.
const fakeName = "fake7"

var fakeFile = filepath.Join(".fake", "hooks.json")

type fakeIntegration struct{}

func (fakeIntegration) Install(env install.Env, prev install.Change) (install.Change, error) {
	cmd := adapter.Command(env.Exe, fakeName)
	hooks := []adapter.FlatHook{{Event: "before_tool", Entry: map[string]any{"command": cmd, "timeout": 900}}}
	edit := jsonedit.Edit{File: fakeFile, Command: cmd, Ours: adapter.OursFlat,
		Add: func(d *jsonedit.Doc) ([]jsonedit.Site, error) {
			return adapter.AddFlatHooks(d, cmd, hooks, jsonedit.First)
		}}
	return edit.InstallRecorded(env.Folder.Root, fakeName, prev)
}

func (fakeIntegration) Uninstall(env install.Env, c install.Change) error {
	ch, err := jsonedit.DecodeRecord(fakeName, c)
	if err != nil {
		return err
	}
	return jsonedit.Uninstall(env.Folder.Root, ch, adapter.OursFlat(ch.Command))
}

func fakeRun(_ context.Context, stdin io.Reader, stdout, _ io.Writer, _ adapter.Opener) (int, error) {
	var in struct {
		Tool string `json:"tool"`
	}
	if err := adapter.ReadJSON(stdin, &in); err != nil {
		return 0, err
	}
	if in.Tool == "" {
		return 0, fmt.Errorf("event has no tool: %w", adapter.ErrBadInput)
	}
	return 0, adapter.WriteJSON(stdout, map[string]string{"decision": "allow"})
}

func fakeRefuse(_, stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "sandbox: refused:", err)
	return 2
}

var registerFake = sync.OnceFunc(func() {
	adapter.Register(adapter.Agent{Name: fakeName, Wires: "wire the fake agent into .fake/hooks.json",
		Install: fakeIntegration{}, Hook: &adapter.Hook{Run: fakeRun, Refuse: fakeRefuse}})
})

// TestFakeSeventhAgent: an agent registered in the one registry is what
// init, uninstall and hook find, and its integration passes the shared
// install suite.
func TestFakeSeventhAgent(t *testing.T) {
	registerFake()
	a, ok := adapter.Lookup(fakeName)
	if !ok || a.Hook == nil {
		t.Fatalf("Lookup(%q) = %+v, %v", fakeName, a, ok)
	}
	if !slices.ContainsFunc(adapter.Agents(), func(a adapter.Agent) bool { return a.Name == fakeName }) {
		t.Error("Agents does not list the fake agent")
	}
	integ, err := adapter.Installer(fakeName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := adapter.Installer("eighth"); !errors.Is(err, adapter.ErrNotAvailable) {
		t.Errorf("Installer(eighth) = %v", err)
	}

	adaptertest.RunInstallTests(t, func() adaptertest.Integration {
		return adaptertest.Integration{
			Install: integ, Files: []string{fakeFile}, Update: *update,
			Cases: []adaptertest.Case{
				{Name: "fake-absent"},
				{Name: "fake-user", Files: map[string]string{fakeFile: "{\n  \"hooks\": {\n    \"before_tool\": [{\"command\": \"./mine.sh\"}]\n  },\n  \"theme\": \"dark\"\n}\n"}},
			},
			Check: func(t *testing.T, env install.Env, files map[string][]byte) {
				var cfg struct {
					Hooks map[string][]struct{ Command string }
				}
				if err := json.Unmarshal(files[fakeFile], &cfg); err != nil {
					t.Fatal(err)
				}
				if es := cfg.Hooks["before_tool"]; len(es) == 0 || es[0].Command != adaptertest.Command(env.Exe, fakeName) {
					t.Errorf("sandbox's hook is not first: %+v", es)
				}
			},
			Refusals: []adaptertest.Refusal{
				{Name: "fake-malformed", Files: map[string]string{fakeFile: `{"hooks": [`}, Err: jsonedit.ErrMalformed},
			},
		}
	})

	t.Run("Hook", func(t *testing.T) {
		var out, errOut bytes.Buffer
		if code, err := a.Hook.Run(context.Background(), strings.NewReader(`{"tool":"x"}`), &out, &errOut, nil); code != 0 || err != nil ||
			out.String() != `{"decision":"allow"}`+"\n" {
			t.Errorf("allowed: %d %v %q", code, err, out.String())
		}
		_, err := a.Hook.Run(context.Background(), strings.NewReader(`{}`), &out, &errOut, nil)
		if !errors.Is(err, adapter.ErrBadInput) || a.Hook.Refuse(&out, &errOut, err) != 2 {
			t.Errorf("an event without a tool: %v", err)
		}
	})
}

// A second agent of a name already registered is a bug.
func TestRegisterTwicePanics(t *testing.T) {
	registerFake()
	defer func() {
		if recover() == nil {
			t.Error("a second registration of the same name did not panic")
		}
	}()
	adapter.Register(adapter.Agent{Name: fakeName, Install: fakeIntegration{}})
}
