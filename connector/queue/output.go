package queue

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultOutputCap is the cap on stdout and stderr each in a Result.
const DefaultOutputCap = 64 << 10

// CapOutput returns b whole when it fits in max bytes; otherwise its head
// and its tail with a marker between them saying how many bytes were left
// out, max bytes at most in total, cut on UTF-8 boundaries where possible.
// The full output stays in results/ID.log.
func CapOutput(b []byte, max int) (string, bool) {
	if len(b) <= max {
		return string(b), false
	}
	marker := fmt.Sprintf("\n[... %d bytes truncated; full output in the result log ...]\n", len(b))
	room := max - len(marker)
	if room <= 0 {
		return marker[:max], true
	}
	head := runeStart(b, room/2)
	tail := len(b) - (room - head)
	for tail < len(b) && !utf8.RuneStart(b[tail]) {
		tail++
	}
	omitted := tail - head
	marker = fmt.Sprintf("\n[... %d bytes truncated; full output in the result log ...]\n", omitted)
	return string(b[:head]) + marker + string(b[tail:]), true
}

// runeStart backs n off to the start of a UTF-8 sequence (at most 3 bytes).
func runeStart(b []byte, n int) int {
	for i := 0; i < 3 && n > 0 && !utf8.RuneStart(b[n]); i++ {
		n--
	}
	return n
}

// cleanText makes free text (a reason, an error message) fit a result
// field: valid UTF-8, NUL shown as \x00, at most max bytes.
func cleanText(s string, max int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", `\x00`)
	if len(s) <= max {
		return s
	}
	return s[:runeStart([]byte(s), max)]
}
