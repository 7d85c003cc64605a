package team

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/policy"
)

// KeyFile is the approver's private key in the per-user state dir: the
// 32-byte ed25519 seed in base64, mode 0600.
const KeyFile = "approver-ed25519.key"

var (
	// ErrNoKey: this user has no approver key yet (`sandbox keys new`).
	ErrNoKey = errors.New("no approver key here: run `sandbox keys new`")
	// ErrKeyExists: NewKey would replace a key.
	ErrKeyExists = errors.New("an approver key exists already (policies that list it trust only it: --force replaces it)")
	// ErrBadKeyFile: the key file is unreadable, malformed or readable by others.
	ErrBadKeyFile = errors.New("the approver key file is malformed or readable by others")
)

// NewKey makes this user's approver key in stateDir; force replaces one
// that exists. It returns the public key.
func NewKey(stateDir string, force bool) (ed25519.PublicKey, error) {
	path := filepath.Join(stateDir, KeyFile)
	if _, err := os.Lstat(path); err == nil && !force {
		return nil, fmt.Errorf("%s: %w", path, ErrKeyExists)
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	seed := base64.StdEncoding.EncodeToString(priv.Seed()) + "\n"
	if err := atomicfile.WriteFile(path, []byte(seed), 0o600); err != nil {
		return nil, fmt.Errorf("approver key: %w", err)
	}
	return pub, nil
}

// LoadKey reads this user's approver key from stateDir.
func LoadKey(stateDir string) (ed25519.PrivateKey, error) {
	path := filepath.Join(stateDir, KeyFile)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoKey
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 && runtime.GOOS != "windows" {
		return nil, fmt.Errorf("%s: %w", path, ErrBadKeyFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	seed, err := base64.StdEncoding.Strict().DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%s: %w", path, ErrBadKeyFile)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// PublicKey is priv's public key as policies list it.
func PublicKey(priv ed25519.PrivateKey) string {
	return policy.FormatApproverKey(priv.Public().(ed25519.PublicKey))
}
