package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// RequireBrowser skips unless a browser test can run here: not in -short
// mode, node on PATH, Debian's chromium, and playwright-core installed
// under root's hack/clients (npm ci --prefix hack/clients). It returns
// node's path and the node_modules to give the script (NODE_PATH).
func RequireBrowser(t T, root string) (node, modules string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("browser test: not in -short mode")
	}
	node = RequireCommand(t, "node")
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		Skip(t, "Debian's chromium is not installed (apt-get install chromium)")
	}
	modules = filepath.Join(root, "hack", "clients", "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "playwright-core")); err != nil {
		Skip(t, "playwright-core is not installed (npm ci --prefix hack/clients)")
	}
	return node, modules
}
