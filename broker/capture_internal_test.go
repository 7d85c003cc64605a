package broker

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// checkCapture writes data in chunks of size step and checks the capture's
// invariants: whole when it fits; otherwise at most max bytes, a prefix and
// a suffix of data around the mark.
func checkCapture(t *testing.T, data string, max, step int) {
	t.Helper()
	c := newCapture(max, true)
	for i := 0; i < len(data); i += step {
		c.Write([]byte(data[i:min(i+step, len(data))]))
	}
	got, trunc := c.String()
	if len(data) <= max {
		if got != data || trunc {
			t.Fatalf("fits: got %q trunc %v", got, trunc)
		}
		return
	}
	head, tail, ok := strings.Cut(got, "\n[... sandbox: output truncated")
	if !ok || !trunc {
		t.Fatalf("no mark in %q", got)
	}
	_, tail, _ = strings.Cut(tail, "...]\n")
	if len(got) > max && max >= 200 {
		t.Errorf("%d bytes > max %d", len(got), max)
	}
	if !strings.HasPrefix(data, head) || !strings.HasSuffix(data, tail) {
		t.Errorf("head %q / tail %q not from the data", head, tail)
	}
	if utf8.ValidString(data) && (!utf8.ValidString(head) || !utf8.ValidString(tail)) {
		t.Errorf("a rune was cut: %q %q", head, tail)
	}
}

func TestCapture(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		max, step int
	}{
		{"empty", "", 300, 1},
		{"fits exactly", strings.Repeat("a", 300), 300, 7},
		{"one over", strings.Repeat("a", 301), 300, 300},
		{"large, small chunks", strings.Repeat("0123456789", 5000), 1000, 13},
		{"large, one chunk", strings.Repeat("0123456789", 5000), 1000, 1 << 20},
		{"utf-8 never cut", strings.Repeat("é€😀", 2000), 500, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkCapture(t, tc.data, tc.max, tc.step) })
	}
}

func FuzzCapture(f *testing.F) {
	f.Add("hello world", 4, 3)
	f.Add(strings.Repeat("é€😀", 200), 300, 5)
	f.Fuzz(func(t *testing.T, data string, max, step int) {
		if max <= 0 || max > 1<<16 || step <= 0 {
			return
		}
		checkCapture(t, data, max, step)
	})
}
