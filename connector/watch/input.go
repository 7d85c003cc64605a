package watch

import (
	"bufio"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// Special keys delivered by the key reader.
const (
	keyEsc       = 0x1b
	keyEOF       = 0x04 // Ctrl-D
	keyBackspace = 0x7f
	keyCtrlH     = 0x08
	keyCtrlU     = 0x15
)

// inputEvent is one key (terminal mode) or one whole line (plain mode),
// stamped with when it was read so that type-ahead can be told apart.
type inputEvent struct {
	at     time.Time
	key    rune   // terminal mode: one key
	line   string // plain mode: one line without its newline
	isLine bool
	err    error // end of input (io.EOF) or a read error
}

// readLines sends one event per line of r, then one with err set.
func readLines(r io.Reader, out chan<- inputEvent) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		out <- inputEvent{at: time.Now(), line: strings.TrimRight(sc.Text(), "\r"), isLine: true}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	out <- inputEvent{at: time.Now(), err: err}
}

// readKeys sends one event per key typed on a terminal in raw mode, then
// one with err set. Escape sequences (arrows, function keys, Alt+key) are
// swallowed whole, so that no part of one is ever taken for a command key;
// a lone Esc at the end of a read is delivered as keyEsc.
func readKeys(r io.Reader, out chan<- inputEvent) {
	var d escFilter
	buf := make([]byte, 256)
	var pending []byte // an incomplete UTF-8 sequence
	for {
		n, err := r.Read(buf)
		now := time.Now()
		keys, rest := d.feed(append(pending, buf[:n]...))
		pending = rest
		for _, k := range keys {
			out <- inputEvent{at: now, key: k}
		}
		if err != nil {
			out <- inputEvent{at: now, err: err}
			return
		}
	}
}

// escFilter removes escape sequences from a byte stream, across reads.
type escFilter struct {
	state int // 0 ground, 1 after ESC, 2 in CSI, 3 after ESC O
}

// feed decodes p into keys and returns an incomplete trailing UTF-8
// sequence to be prepended to the next read.
func (d *escFilter) feed(p []byte) (keys []rune, rest []byte) {
	for i := 0; i < len(p); {
		c := p[i]
		switch d.state {
		case 1:
			d.state = 0
			switch c {
			case '[':
				d.state = 2
			case 'O':
				d.state = 3
			}
			i++ // ESC x (Alt+x) is dropped whole
			continue
		case 2:
			if c >= 0x40 && c <= 0x7e {
				d.state = 0
			}
			i++
			continue
		case 3:
			d.state = 0
			i++
			continue
		}
		if c == keyEsc {
			d.state = 1
			if i == len(p)-1 {
				keys = append(keys, keyEsc)
			}
			i++
			continue
		}
		if !utf8.FullRune(p[i:]) {
			return keys, append([]byte(nil), p[i:]...)
		}
		r, size := utf8.DecodeRune(p[i:])
		keys = append(keys, r)
		i += size
	}
	return keys, nil
}
