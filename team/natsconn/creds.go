package natsconn

import (
	"crypto/ed25519"
	"encoding/base32"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
)

// readCreds reads a credentials file: the user JWT and the user's nkey
// seed, each between its BEGIN and END lines (a server's operator mode),
// or the seed alone (a server that lists users by nkey: jwt is "").
func readCreds(path string) (jwt string, seed ed25519.PrivateKey, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, fmt.Errorf("nats: credentials: %w", err)
	}
	blocks := credsBlocks(string(data))
	if len(blocks) == 0 { // a bare seed file
		blocks = []string{strings.TrimSpace(string(data))}
	}
	if len(blocks) > 2 {
		return "", nil, fmt.Errorf("nats: credentials %s: want a JWT and an nkey seed", path)
	}
	seed, err = decodeUserSeed(blocks[len(blocks)-1])
	if err != nil {
		return "", nil, fmt.Errorf("nats: credentials %s: %w", path, err)
	}
	if len(blocks) == 2 {
		jwt = blocks[0]
	}
	return jwt, seed, nil
}

// publicNkey writes a user's public key as nkeys do: base32 of the
// type byte, the key and a CRC-16.
func publicNkey(pub ed25519.PublicKey) string {
	raw := append([]byte{prefixUser}, pub...)
	sum := crc16(raw)
	raw = append(raw, byte(sum), byte(sum>>8))
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(raw)
}

// credsBlocks returns the text between each -----BEGIN ...----- line and
// the next line of dashes.
func credsBlocks(text string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "-----BEGIN"):
			in = true
		case strings.HasPrefix(l, "---") && in:
			in = false
		case in && l != "":
			out = append(out, l)
		}
	}
	return out
}

// nkey prefix bytes: a seed's first byte, and a user's key type.
const (
	prefixSeed = 18 << 3 // 'S'
	prefixUser = 20 << 3 // 'U'
)

var errBadSeed = errors.New("not a user nkey seed")

// decodeUserSeed decodes an nkey user seed ("SU..."): base32 of two
// prefix bytes, the 32-byte ed25519 seed and a CRC-16 (little-endian).
func decodeUserSeed(s string) (ed25519.PrivateKey, error) {
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(s)
	if err != nil || len(raw) != 2+ed25519.SeedSize+2 {
		return nil, errBadSeed
	}
	body, sum := raw[:len(raw)-2], raw[len(raw)-2:]
	if crc16(body) != uint16(sum[0])|uint16(sum[1])<<8 {
		return nil, errBadSeed
	}
	if raw[0]&0xf8 != prefixSeed || (raw[0]&7)<<5|(raw[1]&0xf8)>>3 != prefixUser {
		return nil, errBadSeed
	}
	return ed25519.NewKeyFromSeed(raw[2 : 2+ed25519.SeedSize]), nil
}

// signNonce signs the server's nonce as CONNECT's sig wants it.
func signNonce(key ed25519.PrivateKey, nonce string) string {
	return base64.RawURLEncoding.EncodeToString(ed25519.Sign(key, []byte(nonce)))
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial 0), as nkeys use.
func crc16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc ^= uint16(c) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}
