package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// effectsOnlyPolicy names no file tool: what it allows, the effects allow.
const effectsOnlyPolicy = "version: 1\nwrite:\n  allow: [\"**\"]\nread:\n  allow: [\"/**\"]\n  escalate: [\"~/.ssh/\"]\n"

// TestCheckEffectsThroughTheBinary: the real binary's check allows the
// everyday file tools on their effects and never an attempt to get one
// past them, with the jailed and the unjailed policy alike.
func TestCheckEffectsThroughTheBinary(t *testing.T) {
	bin := sandboxBinary(t)
	root := policyProject(t, effectsOnlyPolicy)
	if code, out, errw := runCLI(t, "policy", "accept", "--dir", root, "--yes"); code != 0 {
		t.Fatalf("accept: %d %s%s", code, out, errw)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	for _, d := range []string{"src", "d"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(root, "a.txt"), "a")
	if err := os.Symlink(home, filepath.Join(root, "homelink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".bashrc"), filepath.Join(root, "d", "a.txt")); err != nil {
		t.Fatal(err)
	}
	allowed := []string{"mkdir -p build", "touch notes.txt", "cp a.txt b.txt", "mv a.txt c.txt", "rm -rf src",
		"chmod +x a.txt", "tar -czf out.tgz src"}
	// (not ../x: this project lives in a temp dir, which the jailed
	// policy lets commands write)
	escapes := []string{"cp a.txt ~/.bashrc", "touch ../../../../../../../../etc/x", "mv a.txt /etc/x", "ln -s ~/.bashrc l",
		"cp --target-directory=/etc a.txt", "cp --target-dir=/etc a.txt", "cp a.txt homelink/.bashrc", "cp a.txt d",
		"tar -C / -xf x.tgz", "tar --to-command=sh -xf x.tgz", "chmod 777 ~/.bashrc", `cp a.txt "$HOME/x"`,
		"./mkdir x", "rm -rf .", "rm -rf homelink"}
	for _, mode := range []string{"--jailed", "--unjailed"} {
		for _, script := range append(allowed, escapes...) {
			code := checkCode(t, exec.Command(bin, "check", "--dir", root, "--cwd", root, mode, "--script", script))
			if want := inList(allowed, script); (code == 0) != want {
				t.Errorf("%s %q: exit %d, want allowed=%v", mode, script, code, want)
			}
		}
	}
}

func checkCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		t.Fatalf("%v: %s", err, out)
	}
	return 0
}

func inList(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
