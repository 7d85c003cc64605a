package watch

import (
	"context"
	"errors"
	"unicode"
	"unicode/utf8"
)

// errCancelled is returned by a line prompt the human left with Esc.
var errCancelled = errors.New("cancelled")

// readLine asks for one line of text after prompt, starting from initial.
// In plain mode it takes the next input line whole; on a terminal it edits
// the line itself (the terminal is in raw mode): Backspace, Ctrl-U to
// clear, Enter to accept, Esc to cancel. Requests arriving meanwhile are
// announced and the prompt is printed again.
func (s *watchSession) readLine(ctx context.Context, prompt, initial string) (string, error) {
	return s.editLine(prompt, initial, func() (inputEvent, error) { return s.waitEvent(ctx, nil) })
}

// editLine is readLine over any session: wait returns the next input
// event (announcing what arrives meanwhile).
func (t *terminal) editLine(prompt, initial string, wait func() (inputEvent, error)) (string, error) {
	out := t.out
	if t.plain {
		out.printf("%s\n", prompt)
		ev, err := wait()
		if err != nil {
			return "", err
		}
		return ev.line, nil
	}
	buf := []rune(initial)
	t.setRedraw(func() { out.printf("%s%s", prompt, string(buf)) })
	defer t.setRedraw(nil)
	out.printf("%s%s", prompt, string(buf))
	for {
		ev, err := wait()
		if err != nil {
			return "", err
		}
		switch k := ev.key; {
		case k == '\r' || k == '\n':
			out.printf("\n")
			return string(buf), nil
		case k == keyEsc:
			out.printf("\n")
			return "", errCancelled
		case k == keyBackspace || k == keyCtrlH:
			if len(buf) > 0 {
				buf = buf[:len(buf)-1]
				out.printf("\b \b")
			}
		case k == keyCtrlU:
			for range buf {
				out.printf("\b \b")
			}
			buf = buf[:0]
		case unicode.IsPrint(k) && k != utf8.RuneError && len(buf) < 4096:
			buf = append(buf, k)
			out.printf("%c", k)
		}
	}
}
