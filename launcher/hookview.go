package launcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// Claude Code's hooks of type "http" that `sandbox init --claude-http`
// installs post to the project's hook server on the host's loopback,
// which a jail's network namespace does not reach: under `sandbox run`
// every tool call would be refused. The jail sees instead a view of
// .claude/settings.json in which those hooks are the command hooks of
// `sandbox init --claude` (`sandbox hook claude`, which inside the jail
// asks the trusted side through the bus), and the SessionStart hook that
// starts the server is that same command. Everything else in the file is
// as it is.

// claudeSettings is the project's Claude Code settings file.
var claudeSettings = filepath.Join(".claude", "settings.json")

// hookServerURL matches the URL of a hook server's Claude Code hooks.
var hookServerURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^http://127\.0\.0\.1:[0-9]{1,5}/hook/claude$`)
})

// hookServerEnsure is the SessionStart command's tail.
const hookServerEnsure = " hookd --ensure"

// maxSettings bounds the settings file read.
const maxSettings = 4 << 20

// hookView returns the substitute for the project's settings file when it
// holds the hook server's hooks; ok is false when it does not (nothing to
// do). The view lives in a per-run dir of the per-user state dir, hidden
// from the jail; dir is that dir, for removal after the run.
func hookView(root, stateDir string) (sub jailspec.Substitute, dir string, ok bool, err error) {
	path := filepath.Join(root, claudeSettings)
	data, err := readRegular(path, maxSettings)
	if errors.Is(err, os.ErrNotExist) || err == nil && !strings.Contains(string(data), "/hook/claude") {
		return sub, "", false, nil
	}
	if err != nil {
		return sub, "", false, fmt.Errorf("%s: %w", path, err)
	}
	view, changed, err := commandHooks(data)
	if err != nil || !changed {
		return sub, "", false, err // a file Claude Code cannot read either: left as it is
	}
	if dir, err = newRunDir(stateDir, "hooks-"); err != nil {
		return sub, "", false, err
	}
	src := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(src, view, 0o600); err != nil {
		os.RemoveAll(dir)
		return sub, "", false, fmt.Errorf("per-run settings view: %w", err)
	}
	return jailspec.Substitute{Path: path, Source: src}, dir, true, nil
}

// commandHooks rewrites the hook server's hooks of a settings document
// into command hooks; changed is false when it has none. The command is
// the SessionStart hook's binary with `hook claude`.
func commandHooks(data []byte) (out []byte, changed bool, err error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, false, nil
	}
	events, _ := doc["hooks"].(map[string]any)
	exe := ""
	each := func(f func(h map[string]any)) {
		for _, groups := range events {
			gs, _ := groups.([]any)
			for _, g := range gs {
				gm, _ := g.(map[string]any)
				hs, _ := gm["hooks"].([]any)
				for _, h := range hs {
					if hm, ok := h.(map[string]any); ok {
						f(hm)
					}
				}
			}
		}
	}
	each(func(h map[string]any) {
		if c, _ := h["command"].(string); h["type"] == "command" && strings.HasSuffix(c, hookServerEnsure) {
			exe = strings.TrimSuffix(c, hookServerEnsure)
		}
	})
	if exe == "" {
		return nil, false, nil
	}
	each(func(h map[string]any) {
		c, _ := h["command"].(string)
		u, _ := h["url"].(string)
		switch {
		case h["type"] == "command" && c == exe+hookServerEnsure:
		case h["type"] == "http" && hookServerURL().MatchString(u):
			delete(h, "url")
			delete(h, "headers")
			delete(h, "allowedEnvVars")
		default:
			return
		}
		h["type"], h["command"] = "command", exe+" hook claude"
		changed = true
	})
	if !changed {
		return nil, false, nil
	}
	out, err = json.MarshalIndent(doc, "", "  ")
	return append(out, '\n'), true, err
}
