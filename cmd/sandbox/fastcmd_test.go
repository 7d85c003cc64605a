package main

import (
	"bytes"
	"reflect"
	"testing"
)

// TestFastCommandsAreTheTreesOwn: each fast command is a command of the
// tree under the same name, and its help is the same alone as in the tree.
func TestFastCommandsAreTheTreesOwn(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for name, ctor := range fastCommands {
		t.Run(name, func(t *testing.T) {
			if got := ctor().Name(); got != name {
				t.Fatalf("fastCommands[%q] builds %q", name, got)
			}
			listed := false
			for _, c := range commands {
				listed = listed || reflect.ValueOf(c).Pointer() == reflect.ValueOf(ctor).Pointer()
			}
			if !listed {
				t.Fatalf("%s is not in the commands list", name)
			}
			help := func(full bool) string {
				root := newRootCmdFor([]string{name, "--help"})
				if full {
					root = newRootCmd()
				}
				var out bytes.Buffer
				root.SetOut(&out)
				root.SetErr(&out)
				root.SetArgs([]string{name, "--help"})
				if err := root.Execute(); err != nil {
					t.Fatal(err)
				}
				return out.String()
			}
			if alone, tree := help(false), help(true); alone != tree {
				t.Errorf("help differs:\nalone:\n%s\ntree:\n%s", alone, tree)
			}
		})
	}
}
