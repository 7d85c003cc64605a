package launcher

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// proxyVars are replaced in the jail.
var (
	proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"}
	noProxy   = []string{"NO_PROXY", "no_proxy"}
)

// jailEnv is base scrubbed (envRules: what leads out or carries secrets
// goes), with the proxy, the shim dir first on PATH, and the run-mode
// markers.
func jailEnv(base []string, o *Options, proxyPort int, netNS bool) []string {
	drop := map[string]bool{"SANDBOX_JAIL": true, "SANDBOX_CI": true}
	for _, k := range append(append([]string{}, proxyVars...), noProxy...) {
		drop[envKey(k)] = true
	}
	base, _ = ScrubbedEnv(base, envRules(o))
	goCache := jailGoCache(envValue(base, "GOCACHE"), o.Folder.Root)
	if goCache != "" {
		drop["GOCACHE"] = true
	}
	env := make([]string, 0, len(base)+10)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if k = envKey(k); !drop[k] && k != "PATH" {
			env = append(env, kv)
		}
	}
	url := ProxyURL(proxyPort)
	for _, k := range proxyVars {
		env = append(env, k+"="+url)
	}
	if netNS { // the jail's own loopback holds only its own servers
		for _, k := range noProxy {
			env = append(env, k+"=localhost,127.0.0.1,::1")
		}
	}
	env = append(env, "PATH="+jailPath(envValue(base, "PATH"), o.ShimDir), "SANDBOX_JAIL=1")
	if o.CI {
		env = append(env, "SANDBOX_CI=1")
	}
	if goCache != "" {
		env = append(env, "GOCACHE="+goCache)
	}
	return env
}

// jailGoCache is the Go build cache of jailed commands, "" to keep cur.
// The user's cache lives in the home, which the jail keeps read-only: a
// cache the jail could write would feed the user's next build outside
// it, and without one every go build and go test in the jail failed. So
// jailed builds get a cache of their own in the temp dir (the jail's own
// in run mode, the host's in connector mode, where it outlives each
// command), unless cur already lies in the project or a temp dir.
func jailGoCache(cur, root string) string {
	if runtime.GOOS != "linux" {
		return ""
	}
	for _, dir := range append([]string{root}, tempDirs()...) {
		if cur != "" && (cur == dir || strings.HasPrefix(cur, dir+string(filepath.Separator))) {
			return ""
		}
	}
	return filepath.Join(tempDirs()[0], "sandbox-go-build-"+strconv.Itoa(os.Getuid()))
}

// jailPath puts shimDir first and drops other copies of it.
func jailPath(path, shimDir string) string {
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	if shimDir == "" {
		return path
	}
	parts := []string{shimDir}
	for _, p := range filepath.SplitList(path) {
		if p != shimDir {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, string(os.PathListSeparator))
}

func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && envKey(k) == envKey(key) {
			return v
		}
	}
	return ""
}
