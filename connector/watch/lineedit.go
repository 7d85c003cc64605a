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
	if s.plain {
		s.out.printf("%s\n", prompt)
		ev, err := s.waitEvent(ctx, nil)
		if err != nil {
			return "", err
		}
		return ev.line, nil
	}
	buf := []rune(initial)
	s.setRedraw(func() { s.out.printf("%s%s", prompt, string(buf)) })
	defer s.setRedraw(nil)
	s.out.printf("%s%s", prompt, string(buf))
	for {
		ev, err := s.waitEvent(ctx, nil)
		if err != nil {
			return "", err
		}
		switch k := ev.key; {
		case k == '\r' || k == '\n':
			s.out.printf("\n")
			return string(buf), nil
		case k == keyEsc:
			s.out.printf("\n")
			return "", errCancelled
		case k == keyBackspace || k == keyCtrlH:
			if len(buf) > 0 {
				buf = buf[:len(buf)-1]
				s.out.printf("\b \b")
			}
		case k == keyCtrlU:
			for range buf {
				s.out.printf("\b \b")
			}
			buf = buf[:0]
		case unicode.IsPrint(k) && k != utf8.RuneError && len(buf) < 4096:
			buf = append(buf, k)
			s.out.printf("%c", k)
		}
	}
}
