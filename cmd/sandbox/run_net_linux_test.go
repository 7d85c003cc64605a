//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// echoOnEvery is a host service listening on every address (as databases
// often do), echoing a line.
func echoOnEvery(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadString('\n')
				c.Write([]byte(line))
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// acceptPolicy writes yaml as root's policy and accepts it with the real
// binary.
func acceptPolicy(t *testing.T, bin, root, yaml string) {
	t.Helper()
	mustWriteFile(t, filepath.Join(root, ".sandbox", "policy.yaml"), yaml)
	if out, err := exec.Command(bin, "policy", "accept", "--yes", "--dir", root).CombinedOutput(); err != nil {
		t.Fatalf("policy accept: %v\n%s", err, out)
	}
}

// jailedBash runs script as connector mode's per-command jail does.
func jailedBash(t *testing.T, bin, root, script string) string {
	t.Helper()
	cmd := exec.Command(bin, "run", "--quiet", "--shared-tmp", "--dir", root, "--", "bash", "-c", script)
	cmd.Dir = root
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// echoScript tries a host service through bash's /dev/tcp and prints
// "NAME reached" or "NAME refused".
func echoScript(name, host string, port int) string {
	return fmt.Sprintf(`if exec 3<>/dev/tcp/%s/%d && echo ping >&3 && read -t 5 l <&3 && [ "$l" = ping ]; then echo "%s reached"; else echo "%s refused"; fi; exec 3>&-; `,
		host, port, name, name)
}

// Connector mode's per-command jail (`sandbox run --quiet --shared-tmp`),
// through the real binary: a host loopback service is unreachable without
// a rule; an allow rule for 127.0.0.1:PORT forwards exactly that port.
func TestRunForwardsOnlyTheNamedLoopbackPort(t *testing.T) {
	requireRunJail(t)
	bin, root := sandboxBinary(t), runProject(t)
	port, other := echoOnEvery(t), echoOnEvery(t)
	script := echoScript("named", "127.0.0.1", port) + echoScript("named-v6", "::1", port) +
		echoScript("named-127.0.0.2", "127.0.0.2", port) + echoScript("other", "127.0.0.1", other)

	acceptPolicy(t, bin, root, "version: 1\n")
	out := jailedBash(t, bin, root, script)
	for _, want := range []string{"named refused", "named-v6 refused", "named-127.0.0.2 refused", "other refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("without a rule: no %q in\n%s", want, out)
		}
	}

	acceptPolicy(t, bin, root, fmt.Sprintf("version: 1\nnetwork:\n  allow: [\"127.0.0.1:%d\"]\n", port))
	out = jailedBash(t, bin, root, script)
	for _, want := range []string{"named reached", "named-v6 refused", "named-127.0.0.2 refused", "other refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("with 127.0.0.1:%d allowed: no %q in\n%s", port, want, out)
		}
	}
}

// A write the jail refuses, through the real binary end to end: the
// jailed command's own error, fed to the real Claude Code hook as the
// Bash call's PostToolUse, comes back as additionalContext with the exact
// `sandbox request` command.
func TestHookTellsHowToAskAfterAJailedRefusal(t *testing.T) {
	requireRunJail(t)
	bin, root := sandboxBinary(t), runProject(t)
	acceptPolicy(t, bin, root, "version: 1\n")
	target := filepath.Join(outsideTmp(t), "refused.txt")
	command := "echo x > " + target
	out := jailedBash(t, bin, root, command)
	if _, err := os.Stat(target); err == nil {
		t.Fatalf("the jail let the write through:\n%s", out)
	}
	ev, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": root, "hook_event_name": "PostToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command}, "tool_use_id": "toolu_1",
		"tool_response": map[string]any{"stdout": "", "stderr": out, "interrupted": false}})
	hook := exec.Command(bin, "hook", "claude")
	hook.Dir, hook.Stdin = root, bytes.NewReader(ev)
	var stdout, stderr bytes.Buffer
	hook.Stdout, hook.Stderr = &stdout, &stderr
	if err := hook.Run(); err != nil {
		t.Fatalf("hook: %v\n%s", err, stderr.String())
	}
	var answer struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &answer); err != nil {
		t.Fatalf("hook answer %q: %v", stdout.String(), err)
	}
	want := fmt.Sprintf("sandbox request --reason 'needs a write to %s' --script 'echo x > %s'", target, target)
	if a := answer.HookSpecificOutput; a.HookEventName != "PostToolUse" || !strings.Contains(a.AdditionalContext, want) {
		t.Errorf("the jailed command printed %q; the hook answered %+v, want context with %s", out, a, want)
	}
}
