package store

import (
	"bytes"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// The compiled form of the accepted policy (policy.EncodeCache) is cached
// in the per-folder state dir, so that a hook or `sandbox check` does not
// decode YAML on every call. It is signed like every record there; a cache
// that fails its signature or names other bytes is ignored (and the YAML
// parsed).
const (
	cacheName   = "accepted-policy.cache"
	cacheDomain = "sandbox policy-cache v1"
)

// readCache returns the cached accepted policy of the folder at root,
// or nil when there is no valid cache for the bytes hashing to sha.
func readCache(dir string, st *userstate.State, root, file, sha string) *policy.Policy {
	payload := cachePayload(dir, st, root, sha)
	if payload == nil {
		return nil
	}
	p, err := policy.DecodeCache(payload, file, sha)
	if err != nil {
		return nil
	}
	return p
}

// cachePayload returns the compiled policy cached for the folder at root
// when its signature verifies and it is of the bytes hashing to sha; nil
// otherwise.
func cachePayload(dir string, st *userstate.State, root, sha string) []byte {
	data, err := readSmall(filepath.Join(dir, cacheName), 4*policy.MaxPolicySize)
	if err != nil {
		return nil
	}
	sig, payload, ok := bytes.Cut(data, []byte("\n"))
	if !ok || !verifyMACWith(st.Key, string(sig), cacheDomain, []string{root}, payload) ||
		!policy.CacheIsOf(payload, sha) {
		return nil
	}
	return payload
}

// writeCache stores a compiled policy (policy.EncodeCache) for the
// folder at root; failing is harmless.
func writeCache(dir string, st *userstate.State, root string, payload []byte) error {
	sig := macWith(st.Key, cacheDomain, []string{root}, payload)
	return atomicfile.WriteFile(filepath.Join(dir, cacheName), append([]byte(sig+"\n"), payload...), 0o600)
}
