package broker

import (
	"fmt"
	"unicode/utf8"
)

// capture keeps the head and the tail of a stream, at most max bytes each,
// and counts the rest.
type capture struct {
	max    int
	logged bool // a log file has everything (said in the mark)
	total  int64
	head   []byte // the first max bytes
	tail   []byte // at least the last max bytes (trimmed lazily)
}

func newCapture(max int, logged bool) *capture { return &capture{max: max, logged: logged} }

func (c *capture) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	if room := c.max - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(room, len(p))]...)
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*c.max {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-c.max:]...)
	}
	return len(p), nil
}

// String returns the stream if it fits in max bytes; otherwise its head and
// tail around a mark, at most max bytes in all (for any max longer than the
// mark), cut at UTF-8 boundaries.
func (c *capture) String() (s string, truncated bool) {
	if c.total <= int64(c.max) {
		return string(c.head), false
	}
	where := ""
	if c.logged {
		where = "; the log has everything"
	}
	mark := fmt.Sprintf("\n[... sandbox: output truncated, %d bytes in all%s ...]\n", c.total, where)
	budget := max(c.max-len(mark), 0)
	head := runeHead(c.head[:min(budget/2, len(c.head))])
	tailN := min(budget-len(head), len(c.tail))
	tail := runeTail(c.tail[len(c.tail)-tailN:])
	return string(head) + mark + string(tail), true
}

// runeHead drops a partial UTF-8 sequence at the end of b.
func runeHead(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// runeTail drops continuation bytes at the start of b.
func runeTail(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}
