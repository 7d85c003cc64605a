package watch

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What watch logs never reaches the screen as a log record: the screen
// gets one line in words, the file the record.
func TestWatchLogStaysOffTheScreen(t *testing.T) {
	t.Parallel()
	var screen strings.Builder
	path := filepath.Join(t.TempDir(), watchLogName)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := &watchLog{screen: &termWriter{w: &screen}, file: slog.NewTextHandler(f, nil), path: path}
	log := slog.New(h).With("folder", "/p")
	log.Info("queue changed")
	log.Warn("could not read a request", "err", errors.New("bad \x1b[31mfile"))
	got := screen.String()
	if strings.Contains(got, "level=") || strings.Contains(got, "time=") || strings.Contains(got, "\x1b") || strings.Contains(got, "queue changed") {
		t.Errorf("a log record reached the screen:\n%q", got)
	}
	if !strings.Contains(got, `! could not read a request: bad \x1b[31mfile, folder /p  (details in `+path+")") {
		t.Errorf("screen line:\n%q", got)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "level=WARN") || !strings.Contains(string(data), "level=INFO") {
		t.Errorf("log file:\n%s", data)
	}
}
