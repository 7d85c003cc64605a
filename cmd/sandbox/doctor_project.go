package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/claude"
	"github.com/sandbox-dev/sandbox/connector/codex"
	"github.com/sandbox-dev/sandbox/connector/cursor"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/gemini"
	"github.com/sandbox-dev/sandbox/connector/hookd"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/mcpserver"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/connector/windsurf"
)

// statusBroken marks a check of something a user relies on that does not
// work: doctor then exits 1.
const statusBroken = "broken"

// hookFiles are the files each integration writes its hooks into.
var hookFiles = map[string]string{
	"claude": claude.SettingsFile, "codex": codex.ConfigFile, "cursor": cursor.HooksFile,
	"gemini": gemini.SettingsFile, "windsurf": windsurf.HooksFile,
}

// projectChecks are doctor's lines for the project folder in force: its
// wiring and the binary it names, the MCP entry, the policy, an approver.
func projectChecks(dir string) []check {
	f, err := folder.Resolve(dir, nil)
	if err != nil {
		return []check{{Area: "project", Name: "folder", Status: "info", Detail: err.Error()}}
	}
	detail := f.Root
	if up, ok := f.Enclosing(); ok {
		detail += " (nested inside the project " + up.Root + ", which it overrides here)"
	}
	out := []check{{Area: "project", Name: "folder", Status: statusOK, Detail: detail}}
	out = append(out, policyCheck(f))
	m, err := install.LoadManifest(f)
	if err != nil {
		return append(out, check{Area: "project", Name: "wiring", Status: statusBroken, Detail: err.Error()})
	}
	for _, name := range m.Names() {
		out = append(out, wiringCheck(f, name))
	}
	if len(m) == 0 {
		out = append(out, check{Area: "project", Name: "wiring", Status: "warn",
			Detail: "no agent is wired here (sandbox init --claude --mcp, or --codex, --cursor, --gemini, --windsurf)"})
	}
	return append(out, approverCheck(f))
}

func policyCheck(f folder.Folder) check {
	c := check{Area: "project", Name: "policy"}
	st, err := userstate.Open(false)
	if err != nil {
		c.Status, c.Detail = statusBroken, "no policy accepted on this machine: run `sandbox policy accept` (every call escalates until then)"
		return c
	}
	_, accepted, changed, err := store.Pending(f, st)
	switch {
	case err != nil:
		c.Status, c.Detail = statusBroken, err.Error()
	case accepted == nil:
		c.Status, c.Detail = statusBroken, "no policy accepted on this machine: run `sandbox policy accept` (every call escalates until then)"
	case changed:
		c.Status, c.Detail = "warn", "policy.yaml has changes not accepted yet; the accepted policy is in force (`sandbox policy accept`)"
	default:
		c.Status, c.Detail = statusOK, "accepted: "+f.Policy()
	}
	return c
}

// wiringCheck finds the integration's hook in its file and the binary
// the hook runs.
func wiringCheck(f folder.Folder, name string) check {
	c := check{Area: "project", Name: name}
	if name == claude.HTTPName {
		return hookServerCheck(f, c)
	}
	rel, ok := hookFiles[name]
	if name == "mcp" {
		rel, ok = mcpserver.ProjectFile, true
	}
	if !ok {
		c.Status, c.Detail = "info", "wired (not checked by doctor)"
		return c
	}
	data, err := os.ReadFile(filepath.Join(f.Root, rel))
	if err != nil {
		c.Status, c.Detail = statusBroken, fmt.Sprintf("init wired it, but %s cannot be read: %v (run `sandbox init --%s`)", rel, err, name)
		return c
	}
	bin, found := wiredBinary(data, name)
	if !found {
		c.Status, c.Detail = statusBroken, fmt.Sprintf("%s no longer runs sandbox (run `sandbox init --%s`)", rel, name)
		return c
	}
	return binaryCheck(c, rel, bin)
}

// hookServerCheck checks init --claude-http's wiring: the settings post
// to this project's hook server, whose SessionStart hook names a sandbox
// binary that is there, and whether the server answers now.
func hookServerCheck(f folder.Folder, c check) check {
	rel := claude.SettingsFile
	data, err := os.ReadFile(filepath.Join(f.Root, rel))
	if err != nil {
		c.Status, c.Detail = statusBroken, fmt.Sprintf("init wired it, but %s cannot be read: %v (run `sandbox init --%s`)", rel, err, c.Name)
		return c
	}
	url := claude.HookURL(f.Root)
	bin, found := binaryBefore(string(data), " hookd --ensure")
	if !found || !strings.Contains(string(data), `"`+url+`"`) {
		c.Status, c.Detail = statusBroken, fmt.Sprintf("%s no longer posts to this project's hook server %s (run `sandbox init --%s`)", rel, url, c.Name)
		return c
	}
	if c = binaryCheck(c, rel, bin); c.Status != statusOK {
		return c
	}
	port := hookd.Port(f.Root, os.Getuid())
	switch {
	case hookdAnswers(port, f.Root):
		c.Detail += "; the hook server answers on 127.0.0.1:" + strconv.Itoa(port)
	case portTaken(port):
		c.Status, c.Detail = statusBroken, fmt.Sprintf("127.0.0.1:%d, the hook server's port, is taken by another program: every tool call is refused until it is free (or wire --claude instead)", port)
	default:
		c.Detail += fmt.Sprintf("; the hook server (127.0.0.1:%d) is not running: Claude Code's SessionStart hook starts it", port)
	}
	return c
}

// portTaken reports whether something listens on the loopback port.
func portTaken(port int) bool {
	conn, err := net.DialTimeout("tcp4", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err == nil {
		conn.Close()
	}
	return err == nil
}

// wiredBinary is the sandbox binary a hook (or the MCP entry) runs.
func wiredBinary(data []byte, name string) (string, bool) {
	if name == "mcp" {
		var doc struct {
			MCPServers map[string]mcpserver.Entry `json:"mcpServers"`
		}
		if json.Unmarshal(data, &doc) != nil {
			return "", false
		}
		e, ok := doc.MCPServers[mcpserver.ServerName]
		return e.Command, ok && e.Command != ""
	}
	return binaryBefore(string(data), " hook "+name)
}

// binaryBefore is the binary named in text just before marker (a shell
// word, quoted or not).
func binaryBefore(text, marker string) (string, bool) {
	i := strings.Index(text, marker)
	if i < 0 {
		return "", false
	}
	before := text[:i]
	if strings.HasSuffix(before, "'") {
		if j := strings.LastIndex(before[:len(before)-1], "'"); j >= 0 {
			return before[j+1 : len(before)-1], true
		}
	}
	return before[strings.LastIndexAny(before, " \t\"=[;\n")+1:], true
}

func binaryCheck(c check, rel, bin string) check {
	if bin == install.PortableExe {
		p, err := exec.LookPath(bin)
		if err != nil {
			c.Status, c.Detail = statusBroken, rel+" runs the `sandbox` on PATH, and there is none: every call is refused until it is installed"
			return c
		}
		c.Status, c.Detail = statusOK, rel+" runs the `sandbox` on PATH ("+p+")"
		return c
	}
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		c.Status, c.Detail = statusBroken, fmt.Sprintf("%s runs %s, which is not here: put sandbox on PATH and run `sandbox init --%s` again", rel, bin, c.Name)
		return c
	}
	c.Status, c.Detail = statusOK, rel+" runs "+bin+" (an absolute path: a teammate's clone cannot use it; with sandbox on PATH, init writes a portable line)"
	return c
}

func approverCheck(f folder.Folder) check {
	c := check{Area: "project", Name: "approver"}
	switch f.ApproverWatching() {
	case folder.PresenceWatching:
		c.Status, c.Detail = statusOK, "an approver is watching this folder"
	case folder.PresenceNobody:
		c.Status, c.Detail = "warn", f.HowToApprove()
	default:
		c.Status, c.Detail = "info", "cannot tell whether an approver is running on this system"
	}
	return c
}

// doctorExit is exit 1 when a check the user relies on is broken.
func doctorExit(checks []check) error {
	var broken []string
	for _, c := range checks {
		if c.Status == statusBroken {
			broken = append(broken, c.Area+"/"+c.Name)
		}
	}
	if len(broken) == 0 {
		return nil
	}
	return &exitError{code: exitFailure, msg: "doctor: broken: " + strings.Join(broken, ", ")}
}
