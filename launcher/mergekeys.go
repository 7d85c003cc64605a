package launcher

import (
	"reflect"
	"strings"
)

// NoMergeKeys are the keys of an agent's global config that are never
// taken from the jail's copy, at any depth: each of them can make code
// run (MCP servers, hooks, helpers that print credentials, the status
// line's command), widen what runs without asking (permissions, trust
// and bypass acknowledgements, allowed tools) or change whose account
// and binary are used. docs/RUN.md lists them.
var NoMergeKeys = []string{
	"mcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers", "enableAllProjectMcpServers",
	"mcpContextUris", "hooks", "env", "apiKeyHelper", "awsAuthRefresh", "awsCredentialExport",
	"gcpAuthRefresh", "otelHeadersHelper", "statusLine", "permissions", "allowedTools",
	"disallowedTools", "additionalDirectories", "hasTrustDialogAccepted",
	"hasTrustDialogHooksAccepted", "bypassPermissionsModeAccepted", "customApiKeyResponses",
	"primaryApiKey", "oauthAccount", "installMethod", "autoUpdates", "enabledPlugins",
	"extraKnownMarketplaces", "plugins", "forceLoginMethod", "defaultMode",
}

// noMergeParts are name fragments (compared in lower case) that keep a
// key out too: names of later versions' settings of the same kinds.
var noMergeParts = []string{"mcp", "hook", "command", "helper", "permission", "trust", "plugin",
	"marketplace", "apikey", "oauth", "token", "secret", "credential", "install", "bypass",
	"env", "shell", "exec", "script", "allowedtools"}

// noMerge reports whether the jail's value of key k is never taken.
func noMerge(k string) bool {
	for _, n := range NoMergeKeys {
		if k == n {
			return true
		}
	}
	if strings.ContainsAny(k, `/\`) {
		return false // a path (the projects' keys), not a setting's name
	}
	l := strings.ToLower(k)
	for _, p := range noMergeParts {
		if strings.Contains(l, p) {
			return true
		}
	}
	return false
}

// mergeSafe copies into dst what src (the jail's copy) changed, except
// under the keys noMerge refuses, where dst keeps its own value. Objects
// are merged key by key (a new object too, so a new project's entry comes
// back without its MCP servers); any other value is taken only without a
// refused key inside it (a list holding one is left whole). Keys the jail
// removed stay. It reports whether dst changed.
func mergeSafe(dst, src map[string]any) bool {
	changed := false
	for k, v := range src {
		if noMerge(k) {
			continue
		}
		old, had := dst[k]
		om, oIsObj := old.(map[string]any)
		nm, nIsObj := v.(map[string]any)
		switch {
		case nIsObj && had && oIsObj:
			changed = mergeSafe(om, nm) || changed
		case nIsObj:
			fresh := map[string]any{}
			mergeSafe(fresh, nm)
			if len(fresh) > 0 || len(nm) == 0 {
				dst[k] = fresh
				changed = true
			}
		case !carriesRefused(v) && (!had || !reflect.DeepEqual(old, v)):
			dst[k] = v
			changed = true
		}
	}
	return changed
}

// carriesRefused reports whether a refused key appears anywhere in v.
func carriesRefused(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if noMerge(k) || carriesRefused(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if carriesRefused(x) {
				return true
			}
		}
	}
	return false
}
