package checkpoint

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// fixture writes files files of about 1 KiB, 100 per directory.
func fixture(b *testing.B, root string, files int) {
	b.Helper()
	body := strings.Repeat("// some source line of a typical project file\n", 22)
	for i := range files {
		dir := filepath.Join(root, "src", fmt.Sprintf("pkg%d", i/100))
		if i%100 == 0 {
			mustOK(b, os.MkdirAll(dir, 0o755))
		}
		mustOK(b, os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%d.go", i%100)), []byte(body+fmt.Sprint(i)), 0o644))
	}
}

// future is a clock an hour ahead, so that the fixture's files, written
// a moment ago, are not "racily clean" for the stat cache (in real use
// files are older than two seconds; waiting that long in the benchmark
// measures nothing else).
func future() time.Time { return time.Now().Add(time.Hour) }

// BenchmarkCheckpoint10k: the whole work tree of a 10,000-file project
// (git reset --hard, git checkout -- .) with one file changed since the
// last checkpoint. The bound is 50 ms per checkpoint.
func BenchmarkCheckpoint10k(b *testing.B) {
	s, root := newTestStore(b, Options{Now: future, PruneEvery: 1000 * time.Hour})
	fixture(b, root, 10_000)
	if _, err := s.Take(Request{WholeTree: true}); err != nil { // warm the stat cache
		b.Fatal(err)
	}
	changed := filepath.Join(root, "src", "pkg42", "file7.go")
	var added int64
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		mustOK(b, os.WriteFile(changed, []byte(fmt.Sprint("version ", i)), 0o644))
		ck, err := s.Take(Request{WholeTree: true})
		if err != nil {
			b.Fatal(err)
		}
		if ck.Files != 10_000 {
			b.Fatalf("kept %d files", ck.Files)
		}
		added += ck.Added
	}
	b.ReportMetric(float64(added)/float64(b.N), "store-B/op")
}

// BenchmarkWalk10kBaseline is the floor BenchmarkCheckpoint10k cannot
// go under: listing the same work tree and lstat-ing every file, as
// `git status` does, with nothing kept. Compare the two on one machine.
func BenchmarkWalk10kBaseline(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	mustOK(b, err)
	fixture(b, root, 10_000)
	b.ResetTimer()
	for b.Loop() {
		n := 0
		err := filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			_, err = d.Info()
			n++
			return err
		})
		if err != nil || n < 10_000 {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkCheckpointCorpus takes the checkpoint of every command of the
// corpus (see corpus) in turn on a 2,000-file project, editing one
// file between commands (the commands themselves are not run, so every
// one finds its files). It reports the median cost of one command's
// checkpoint and the store's growth per 1,000 commands.
func BenchmarkCheckpointCorpus(b *testing.B) {
	cmds := corpus(b)
	s, root := newTestStore(b, Options{Now: future, PruneEvery: 1000 * time.Hour})
	fixture(b, root, 2_000)
	for _, f := range []string{"README.md", "package.json", "app.log", "data.txt", "scripts/run.sh"} {
		writeFile(b, filepath.Join(root, f), "content of "+f+"\n", 0o644)
	}
	var times []time.Duration
	var added int64
	n := 0
	b.ResetTimer()
	for b.Loop() {
		for _, c := range cmds {
			edit := filepath.Join(root, "src", fmt.Sprintf("pkg%d", n%20), "file0.go")
			mustOK(b, os.WriteFile(edit, []byte(fmt.Sprint("edit ", n)), 0o644))
			start := time.Now()
			paths, whole := ForShell(c, root)
			ck, err := s.Take(Request{Paths: paths, WholeTree: whole, Command: c})
			times = append(times, time.Since(start))
			if err != nil {
				b.Fatal(err)
			}
			if ck != nil {
				added += ck.Added
			}
			n++
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median/cmd")
	b.ReportMetric(float64(added)/float64(n)*1000/(1<<20), "MiB/1000cmds")
	b.ReportMetric(float64(len(cmds)), "cmds")
}

// corpus is testdata/destructive.txt and, once the policy's everyday
// corpus is there, its commands that delete or overwrite something (a
// "\t# tag" suffix names the project kind and is dropped).
func corpus(b *testing.B) []string {
	out := lines(b, filepath.Join("testdata", "destructive.txt"))
	everyday := filepath.Join("..", "policy", "testdata", "corpus", "everyday.txt")
	if _, err := os.Stat(everyday); err == nil {
		for _, l := range lines(b, everyday) {
			l, _, _ = strings.Cut(l, "\t#")
			if paths, whole := ForShell(l, "/p"); whole || len(paths) > 0 {
				out = append(out, strings.TrimSpace(l))
			}
		}
	}
	return out
}

func lines(b *testing.B, path string) []string {
	f, err := os.Open(path)
	mustOK(b, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}
