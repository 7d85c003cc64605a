package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

func TestRememberedCLI(t *testing.T) {
	root := policyProject(t, string(policy.DefaultYAML()))
	f, err := folder.New(root)
	if err != nil {
		t.Fatal(err)
	}
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []policy.Remembered{
		{Trigger: policy.Shell, Tier: policy.Allow, Pattern: "npm install **", By: "alice"},
		{Trigger: policy.Network, Tier: policy.Deny, Pattern: "evil.test"},
	} {
		if err := store.Remember(f, st, r); err != nil {
			t.Fatal(err)
		}
	}
	list := func() []rememberedView {
		t.Helper()
		code, out, errw := runCLI(t, "remembered", "list", "--json", "--dir", root)
		if code != 0 {
			t.Fatalf("list: exit %d: %s", code, errw)
		}
		var vs []rememberedView
		if err := json.Unmarshal([]byte(out), &vs); err != nil {
			t.Fatalf("list --json: %v: %s", err, out)
		}
		return vs
	}
	vs := list()
	if len(vs) != 2 || vs[0].Pattern != "npm install **" || vs[1].Tier != "deny" || vs[0].ID == "" {
		t.Fatalf("list: %+v", vs)
	}
	if code, out, _ := runCLI(t, "remembered", "list", "--dir", root); code != 0 || !strings.Contains(out, vs[0].ID) || !strings.Contains(out, "npm install **") {
		t.Errorf("list: %d %q", code, out)
	}
	steps := []struct {
		name string
		args []string
		code int
		want string
		left int
	}{
		{"neither ids nor --all", []string{"remembered", "forget", "--dir", root}, exitUsage, "give the IDs", 2},
		{"an unknown id forgets nothing", []string{"remembered", "forget", "--dir", root, vs[0].ID, "nosuchid"}, 1, "no such remembered decision", 2},
		{"one id", []string{"remembered", "forget", "--dir", root, vs[0].ID}, 0, "forgot " + vs[0].ID, 1},
		{"all", []string{"remembered", "forget", "--dir", root, "--all"}, 0, "evil.test", 0},
		{"all again", []string{"remembered", "forget", "--dir", root, "--all"}, 0, "No remembered decisions", 0},
	}
	for _, s := range steps {
		code, out, errw := runCLI(t, s.args...)
		if code != s.code || !strings.Contains(out+errw, s.want) {
			t.Errorf("%s: exit %d, out %q err %q; want %d and %q", s.name, code, out, errw, s.code, s.want)
		}
		if n := len(list()); n != s.left {
			t.Errorf("%s: %d left, want %d", s.name, n, s.left)
		}
	}
}
