// Package install records what `sandbox init` added to a project (agent
// hooks, MCP server entries) so that `sandbox uninstall` removes exactly
// that and nothing else. Each agent integration implements Integration;
// connector/adapter's registry finds it for init and uninstall.
package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/folder"
)

// Env is what an integration needs to know to install itself.
type Env struct {
	Folder folder.Folder
	// Exe is the absolute path of the sandbox binary the hooks must run,
	// or PortableExe: the one on the agent's PATH, for wiring a team
	// commits (a teammate's binary lives elsewhere).
	Exe string
}

// PortableExe as Env.Exe makes the written configuration name the binary
// found on PATH (`sandbox`) and no absolute path of this machine: no
// binary path, and no project root (the MCP server finds the project
// from the directory the agent starts it in).
const PortableExe = "sandbox"

// Change is one thing an integration added, opaque to everyone but the
// integration itself: it is stored in .sandbox/installed.json and handed
// back to Uninstall.
type Change = json.RawMessage

// Integration wires one agent (or the MCP server) into a project.
type Integration interface {
	// Install merges the integration into the project's files. It must be
	// idempotent: when everything is already there it returns prev
	// unchanged. A malformed user file is an error that changes nothing.
	Install(env Env, prev Change) (Change, error)
	// Uninstall removes exactly what Install recorded in c.
	Uninstall(env Env, c Change) error
}

// Manifest is .sandbox/installed.json: per integration, what it added.
type Manifest map[string]Change

func manifestPath(f folder.Folder) string { return filepath.Join(f.Dir(), "installed.json") }

// LoadManifest reads the manifest; a missing file is an empty manifest.
func LoadManifest(f folder.Folder) (Manifest, error) {
	data, err := os.ReadFile(manifestPath(f))
	if errors.Is(err, os.ErrNotExist) {
		return Manifest{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("install manifest: %w", err)
	}
	m := Manifest{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("install manifest %s: %w", manifestPath(f), err)
	}
	return m, nil
}

// Save writes the manifest atomically; an empty manifest removes the file.
func (m Manifest) Save(f folder.Folder) error {
	if len(m) == 0 {
		if err := os.Remove(manifestPath(f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("install manifest: %w", err)
		}
		return nil
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("install manifest: %w", err)
	}
	return atomicfile.WriteFile(manifestPath(f), append(data, '\n'), 0o644)
}

// Names lists the manifest's integrations in a stable order.
func (m Manifest) Names() []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
