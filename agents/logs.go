package agents

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/display"
)

// followPoll is how often logs -f looks for more output.
const followPoll = 200 * time.Millisecond

// Logs writes agent name's log to w: escaped (the agent's output is
// untrusted, and a terminal obeys escape sequences) unless raw; with
// follow, it goes on until the supervisor ends or ctx is cancelled.
func (r *Registry) Logs(ctx context.Context, name string, w io.Writer, follow, raw bool) error {
	if _, err := r.Get(name); err != nil {
		return err
	}
	f, err := os.Open(r.LogPath(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if !raw { // a terminal's transcript ends its lines with \r\n
				line = display.Escape(strings.ReplaceAll(line, "\r\n", "\n"))
			}
			if _, werr := io.WriteString(w, line); werr != nil {
				return werr
			}
		}
		if err == nil {
			continue
		}
		if !errors.Is(err, io.EOF) {
			return err
		}
		if !follow {
			return nil
		}
		if !r.Held(name) {
			follow = false // one more pass: what it wrote before it ended
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(followPoll):
		}
	}
}
