package watch

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sandbox-dev/sandbox/connector/display/review"
)

// defaultPage is the page size when the terminal's height is unknown.
const defaultPage = 60

// pager shows a rendered request a screenful at a time. Nothing of a
// request may be approved before all of it has been on the screen: a
// 63-line script with `rm -rf ~/.cache/x` on line 62 was once approved
// from the first 60 lines. The human pages on (space) or asks for the
// rest at once (v); until then the approve keys are refused.
type pager struct {
	lines []string
	shown int
	rv    *review.Review
}

// newPager renders it whole.
func newPager(it pendingItem, o RenderOptions) *pager {
	rv := it.wf.env.Review.Review(it.req)
	var b bytes.Buffer
	RenderRequest(&b, it.req, rv, o)
	text := strings.TrimSuffix(b.String(), "\n")
	return &pager{lines: strings.Split(text, "\n"), rv: rv}
}

// done reports whether every line has been shown.
func (p *pager) done() bool { return p.shown >= len(p.lines) }

func (p *pager) left() int { return len(p.lines) - p.shown }

// next prints the lines that fit in pg (all of them when pg.rows <= 0,
// and at least one), counting a line longer than the terminal is wide as
// the rows it wraps onto, and a marker saying how many lines are left.
func (p *pager) next(out *termWriter, pg page) {
	used := 0
	end := p.shown
	for end < len(p.lines) {
		r := pg.rowsOf(p.lines[end])
		if pg.rows > 0 && end > p.shown && used+r > pg.rows {
			break
		}
		out.printf("%s\n", p.lines[end])
		used += r
		end++
	}
	p.shown = end
	if !p.done() {
		out.printf("           ┆ … %d more line%s of this request not shown yet: [space] next page, [v] all of it\n", p.left(), plural(p.left()))
	}
}

// refusal explains why an approve key did nothing.
func (p *pager) refusal() string {
	return fmt.Sprintf("not approved: %d line%s of this request %s not been shown yet; [space] next page, [v] show all of it, then approve",
		p.left(), plural(p.left()), map[bool]string{true: "has", false: "have"}[p.left() == 1])
}

// page is the room one page has: rows of cols characters (rows <= 0:
// unbounded).
type page struct{ rows, cols int }

func (pg page) rowsOf(line string) int {
	n := utf8.RuneCountInString(line)
	if pg.cols <= 0 || n <= pg.cols {
		return 1
	}
	return (n + pg.cols - 1) / pg.cols
}
