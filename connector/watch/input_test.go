package watch

import (
	"slices"
	"testing"
)

// Escape sequences (arrows, function keys, Alt+key) never reach the
// command keys, even when a read splits one; a lone Esc at the end of a
// read is a key, and a UTF-8 character split across reads is one key.
func TestEscFilter(t *testing.T) {
	tests := []struct {
		name  string
		reads []string
		want  []rune
	}{
		{"plain keys", []string{"ad"}, []rune{'a', 'd'}},
		{"arrow up", []string{"\x1b[Aa"}, []rune{'a'}},
		{"arrow split across reads", []string{"\x1b", "[", "A", "d"}, []rune{keyEsc, 'd'}},
		{"function key with parameters", []string{"\x1b[15~s"}, []rune{'s'}},
		{"SS3 key", []string{"\x1bOPq"}, []rune{'q'}},
		{"Alt+a", []string{"\x1baq"}, []rune{'q'}},
		{"lone Esc", []string{"\x1b"}, []rune{keyEsc}},
		{"split UTF-8", []string{"\xc3", "\xa9"}, []rune{'é'}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d escFilter
			var got []rune
			var pending []byte
			for _, r := range tc.reads {
				keys, rest := d.feed(append(pending, r...))
				pending = rest
				got = append(got, keys...)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("keys %q, want %q", got, tc.want)
			}
		})
	}
}

// A page counts a line wider than the terminal as the rows it wraps onto.
func TestPageRows(t *testing.T) {
	pg := page{rows: 10, cols: 4}
	for line, want := range map[string]int{"": 1, "abcd": 1, "abcde": 2, "ééééééééé": 3} {
		if got := pg.rowsOf(line); got != want {
			t.Errorf("rowsOf(%q) = %d, want %d", line, got, want)
		}
	}
	if got := (page{}).rowsOf("a long line"); got != 1 {
		t.Errorf("unbounded page: rowsOf = %d", got)
	}
}
