package audit

import (
	"testing"
)

func benchAppend(b *testing.B, d Durability) {
	e := newEnv(b)
	l := e.open(b, WithDurability(d))
	defer l.Close()
	entry := testEntry(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Append(entry); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "appends/s")
}

// BenchmarkAppend is the default durability: fdatasync before Append
// returns.
func BenchmarkAppend(b *testing.B) { benchAppend(b, SyncEach) }

// BenchmarkAppendBatch syncs at most every 100 ms.
func BenchmarkAppendBatch(b *testing.B) { benchAppend(b, SyncBatch) }

// BenchmarkAppendParallel is SyncEach with 16 goroutines appending at
// once: their records share group syncs.
func BenchmarkAppendParallel(b *testing.B) {
	e := newEnv(b)
	l := e.open(b)
	defer l.Close()
	entry := testEntry(1)
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := l.Append(entry); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "appends/s")
}

func BenchmarkVerify(b *testing.B) {
	const n = 100_000
	e := newEnv(b)
	e.appendN(b, n, WithDurability(SyncBatch))
	b.ResetTimer()
	for b.Loop() {
		rep, err := Verify(e.f, e.st)
		if err != nil || !rep.OK || rep.Records != n {
			b.Fatalf("%v %+v", err, rep)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}
