package watch

import (
	"strings"
	"testing"
)

// A running command's output reaches the screen line by line, escaped,
// with a gutter telling stderr from stdout; an unfinished line is shown
// when the command ends.
func TestLiveOutput(t *testing.T) {
	var screen strings.Builder
	write, flush := LiveOutput(&screen)
	write("stdout", []byte("one\ntw"))
	write("stderr", []byte("bad \x1b[2J\n"))
	write("stdout", []byte("o\nthree"))
	flush()
	want := "   │ one\n   ! bad \\x1b[2J\n   │ two\n   │ three\n"
	if got := screen.String(); got != want {
		t.Errorf("screen:\n%q\nwant\n%q", got, want)
	}
}
