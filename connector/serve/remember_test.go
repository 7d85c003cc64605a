package serve

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// fakeMemory proposes "PREFIX *" for a script and remembers in memory.
type fakeMemory struct {
	mu       sync.Mutex
	patterns []string // remembered allows
}

func (m *fakeMemory) Propose(req *queue.Request) (string, error) {
	return strings.Fields(req.Shell.Script)[0] + " \u202e*", nil
}

func (m *fakeMemory) Check(req *queue.Request, pattern string) error { return nil }

func (m *fakeMemory) Remember(req *queue.Request, pattern string, who approver.Identity) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.patterns = append(m.patterns, pattern)
	return nil
}

func (m *fakeMemory) Match(req *queue.Request) (approver.Remembered, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.patterns {
		if strings.HasPrefix(req.Shell.Script, strings.Fields(p)[0]+" ") {
			return approver.Remembered{Allow: true, Pattern: p}, true
		}
	}
	return approver.Remembered{}, false
}

func TestApproveAlwaysRemembersThePatternShown(t *testing.T) {
	mem := &fakeMemory{}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	h := newHarnessMem(t, 1, testAddr, mem)
	req := h.projects[0].submit(t, "ls -la")
	v := h.pending(t, 1)[0]
	if v.Pattern != `ls \u202e*` {
		t.Fatalf("pattern shown %q", v.Pattern)
	}
	// The escaped proposal sent back stands for the proposal itself.
	var dv decisionView
	decode(t, h.do(t, "POST", "/api/requests/"+req.ID+"/approve", `{"always":true,"pattern":"ls \\u202e*","hash":"`+req.Hash+`"}`), 200, &dv)
	if len(mem.patterns) != 1 || mem.patterns[0] != "ls \u202e*" || dv.Result.Always != `ls \u202e*` {
		t.Fatalf("remembered %q, result %+v", mem.patterns, dv.Result)
	}
	// A request the remembered decision covers is settled by the server.
	next := h.projects[0].submit(t, "ls /tmp")
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		res, err := h.projects[0].q.Result(next.ID)
		if err == nil {
			if res.Approver.Surface != approver.SurfaceRemembered || res.Decision != queue.Approved {
				t.Fatalf("auto result %+v", res)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the remembered decision was not applied")
		}
	}
}

func TestApproveAlwaysWithoutMemoryRunsNothing(t *testing.T) {
	h := newHarness(t, 1)
	req := h.projects[0].submit(t, "echo x >> ran.txt")
	if v := h.pending(t, 1)[0]; v.Pattern != "" {
		t.Fatalf("a pattern without memory: %q", v.Pattern)
	}
	w := h.do(t, "POST", "/api/requests/"+req.ID+"/approve", `{"always":true,"hash":"`+req.Hash+`"}`)
	if w.Code != 422 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	h.pending(t, 1) // released, still pending
}
