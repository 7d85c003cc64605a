package audit

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestReadAfterAndForged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.appendN(t, 5)
	lines := e.lines(t)
	c := &lines[2][len(lines[2])-3] // the last hex digit of record 3's hmac
	if *c == '0' {
		*c = '1'
	} else {
		*c = '0'
	}
	e.writeLines(t, lines)
	var seqs []uint64
	var authentic []bool
	err := Read(context.Background(), e.f, e.st, 1, func(r Record) error {
		seqs = append(seqs, r.Seq)
		authentic = append(authentic, r.Authentic)
		return nil
	})
	if err != nil || len(seqs) != 4 || seqs[0] != 2 || authentic[1] || !authentic[0] || !authentic[2] {
		t.Fatalf("seqs %v authentic %v err %v", seqs, authentic, err)
	}
}

func TestFollow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.appendN(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got := make(chan Record, 16)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, e.f, e.st, 0, func(r Record) error {
			got <- r
			return nil
		})
	}()
	for want := uint64(1); want <= 5; want++ {
		if want == 3 {
			e.appendN(t, 3)
		}
		select {
		case r := <-got:
			if r.Seq != want || !r.Authentic {
				t.Fatalf("got seq %d (authentic %v), want %d", r.Seq, r.Authentic, want)
			}
		case <-ctx.Done():
			t.Fatalf("no record %d", want)
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("follow returned %v", err)
	}
}

// A line still being written is not emitted until it is complete.
func TestFollowWaitsForWholeLines(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.appendN(t, 1)
	e.appendRaw(t, []byte(`{"seq":2,`))
	n := 0
	tl, err := newTailer(e.f, e.st, 0)
	if err != nil {
		t.Fatal(err)
	}
	count := func(Record) error { n++; return nil }
	if err := tl.poll(context.Background(), count); err != nil || n != 1 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	e.appendN(t, 1) // records the torn line, then its own
	if err := tl.poll(context.Background(), count); err != nil || n != 3 {
		t.Fatalf("n=%d err=%v", n, err)
	}
}
