package natsconn

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
)

// Header is a message's headers (NATS/1.0, as HTTP's: case kept as
// written, several values per key).
type Header map[string][]string

// Get is the first value of key.
func (h Header) Get(key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Set replaces key's values with value.
func (h Header) Set(key, value string) { h[key] = []string{value} }

const headerLine = "NATS/1.0"

func (h Header) encode() []byte {
	var b bytes.Buffer
	b.WriteString(headerLine + "\r\n")
	for k, vs := range h {
		for _, v := range vs {
			b.WriteString(k + ": " + v + "\r\n")
		}
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

var errBadHeader = errors.New("nats: malformed message headers")

// decodeHeader reads a header block and its status line.
func decodeHeader(b []byte) (Header, int, string, error) {
	text := string(b)
	if !strings.HasSuffix(text, "\r\n\r\n") {
		return nil, 0, "", errBadHeader
	}
	lines := strings.Split(strings.TrimSuffix(text, "\r\n\r\n"), "\r\n")
	first, rest, _ := strings.Cut(lines[0], " ")
	if first != headerLine {
		return nil, 0, "", errBadHeader
	}
	status, desc := 0, ""
	if rest = strings.TrimSpace(rest); rest != "" {
		code, d, _ := strings.Cut(rest, " ")
		n, err := strconv.Atoi(code)
		if err != nil {
			return nil, 0, "", errBadHeader
		}
		status, desc = n, strings.TrimSpace(d)
	}
	h := Header{}
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok || k == "" {
			return nil, 0, "", errBadHeader
		}
		h[k] = append(h[k], strings.TrimSpace(v))
	}
	return h, status, desc, nil
}
