package launcher

import (
	"os"
	"path/filepath"
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
	return env
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
