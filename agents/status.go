package agents

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// IdleAfter is how long a running agent's output may stay still before
// it shows as idle.
const IdleAfter = 2 * time.Minute

// Status is one agent as `sandbox agents list` shows it.
type Status struct {
	Record
	// Pending counts the requests waiting in the worktree's folder.
	Pending int `json:"pending"`
	// Diffstat is the worktree against the base (committed or not):
	// files changed, lines added and deleted.
	Diffstat Diffstat `json:"diffstat"`
	// CPU and Memory are the jail's cgroup's usage, where readable.
	CPUSeconds  float64 `json:"cpu_seconds,omitempty"`
	MemoryBytes int64   `json:"memory_bytes,omitempty"`
	// UptimeSeconds is how long the running agent has run.
	UptimeSeconds float64 `json:"uptime_seconds,omitempty"`
}

// Diffstat is git's --shortstat.
type Diffstat struct {
	Files      int `json:"files"`
	Insertions int `json:"insertions"`
	Deletions  int `json:"deletions"`
}

// Observe adds to rec what list shows: the pending requests (a running
// agent with one is waiting; one silent for IdleAfter is idle), the
// diffstat, the jail's usage and the uptime.
func (r *Registry) Observe(ctx context.Context, rec Record, st *userstate.State) Status {
	s := Status{Record: rec}
	if st != nil {
		s.Pending = pendingIn(folder.Folder{Root: rec.Worktree}, st)
	}
	if out, err := r.worktreeGit(ctx, rec, "diff", "--no-ext-diff", "--no-textconv", "--shortstat", rec.Base); err == nil {
		s.Diffstat = parseShortstat(out)
	}
	if rec.State.Final() {
		return s
	}
	s.UptimeSeconds = time.Since(rec.Started).Round(time.Second).Seconds()
	s.CPUSeconds, s.MemoryBytes = jailUsage(rec.PID)
	switch {
	case s.Pending > 0:
		s.State = Waiting
	case rec.State == Running && quietFor(r.LogPath(rec.Name)) > IdleAfter:
		s.State = Idle
	}
	return s
}

func pendingIn(f folder.Folder, st *userstate.State) int {
	if !f.Exists() {
		return 0
	}
	q, err := queue.Open(f, queue.WithKey(st.Key))
	if err != nil {
		return 0
	}
	defer q.Close()
	reqs, _ := q.Pending()
	return len(reqs)
}

func quietFor(path string) time.Duration {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return time.Since(fi.ModTime())
}

var shortstatRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+) (file|insertion|deletion)`) })

func parseShortstat(s string) Diffstat {
	var d Diffstat
	for _, m := range shortstatRE().FindAllStringSubmatch(s, -1) {
		n, _ := strconv.Atoi(m[1])
		switch m[2] {
		case "file":
			d.Files = n
		case "insertion":
			d.Insertions = n
		case "deletion":
			d.Deletions = n
		}
	}
	return d
}
