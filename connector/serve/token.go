package serve

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// minTokenLen is the shortest token accepted (NewToken makes 43).
const minTokenLen = 32

// NewToken returns a fresh random token: 32 bytes, base64url.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("serve: token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// SaveToken keeps token in the per-user state directory, readable by its
// owner only (0600), as serve/HOST_PORT.token, so that the user's own
// tools can call the API. It returns the path and a function that
// removes the file (on a clean stop).
func SaveToken(st *userstate.State, addr, token string) (string, func(), error) {
	dir := filepath.Join(st.Dir, "serve")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, fmt.Errorf("serve: token: %w", err)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil, fmt.Errorf("serve: token: %w", err)
	}
	name := strings.NewReplacer(":", "-", "%", "-").Replace(host) + "_" + port + ".token"
	path := filepath.Join(dir, name)
	if err := atomicfile.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		return "", nil, fmt.Errorf("serve: token: %w", err)
	}
	return path, func() { os.Remove(path) }, nil
}

// tokenEqual compares in constant time.
func tokenEqual(got, want string) bool {
	return len(got) == len(want) && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
