package inbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Notification limits. A notification is a hint to look at the inbox:
// one attempt each, no retries (a dead webhook must not turn every
// arrival into a storm of retries), and at most maxInFlight at once
// (beyond that they are dropped and logged).
const (
	NotifyTimeout = 5 * time.Second
	maxInFlight   = 4
	summaryLen    = 80
)

// Notice is what a notification tells: which agent waits and for what,
// in a few words. Summary is the request's kind and what it names first
// (the program, the host, the path or the tool), escaped and truncated:
// never its arguments (a command line may carry a token to a webhook's
// third party), never output.
type Notice struct {
	Event   string `json:"event"` // "agent.waiting"
	Agent   string `json:"agent"`
	Branch  string `json:"branch,omitempty"`
	Request string `json:"request"`
	Summary string `json:"summary"`
	Pending int    `json:"pending"`
}

// Notifier tells the human, outside the approver's screen, that an agent
// started waiting: a desktop notification (notify-send, where it is on
// PATH) and a POST of a Notice as JSON to Webhook (the policy's
// agents.notify.webhook). Sends run in the background: the approver's
// loop never waits for them; failures are logged, never fatal.
type Notifier struct {
	Webhook string
	Desktop bool
	Log     *slog.Logger
	Client  *http.Client // nil: one with NotifyTimeout, no redirects

	wg sync.WaitGroup

	mu sync.Mutex
	// Guarded by mu: the agents waiting at the last look, and the sends
	// in flight.
	waiting  map[string]bool
	inFlight int
}

// Update is told an agent's pending requests after every look at its
// queue; it notifies when the agent had none and now has some, and
// reports whether it did. MAIN is not an agent: its requests never
// notify.
func (n *Notifier) Update(t Tag, pending []*queue.Request) bool {
	if n == nil || t.IsMain() {
		return false
	}
	n.mu.Lock()
	if n.waiting == nil {
		n.waiting = map[string]bool{}
	}
	was := n.waiting[t.Agent]
	n.waiting[t.Agent] = len(pending) > 0
	n.mu.Unlock()
	if was || len(pending) == 0 {
		return false
	}
	first := pending[0]
	n.send(Notice{Event: "agent.waiting", Agent: t.Agent, Branch: t.Branch, Request: first.ID,
		Summary: Summary(first), Pending: len(pending)})
	return true
}

// Summary says what req asks in a few words that hold no secret: its
// kind and the program (not its arguments), the host (not the URL), the
// path or the MCP tool.
func Summary(req *queue.Request) string {
	what := ""
	switch {
	case req.Kind == queue.KindShell && req.Shell != nil && len(req.Shell.Argv) > 0:
		what = filepath.Base(req.Shell.Argv[0])
	case req.Kind == queue.KindShell && req.Shell != nil:
		if f := strings.Fields(req.Shell.Script); len(f) > 0 {
			what = filepath.Base(f[0])
		}
	case req.Kind == queue.KindNetwork && req.Network != nil:
		what = req.Network.Host
		if u, err := url.Parse(req.Network.URL); what == "" && err == nil {
			what = u.Hostname()
		}
	case req.Kind == queue.KindWrite && req.Write != nil:
		what = req.Write.Path
	case req.Kind == queue.KindRead && req.Read != nil:
		what = req.Read.Path
	case req.Kind == queue.KindMCP && req.MCP != nil:
		what = req.MCP.Tool
	}
	return display.Truncate(display.EscapeLine(strings.TrimSpace(string(req.Kind)+" "+what)), summaryLen)
}

// Wait waits for the sends in flight (tests, and a clean exit).
func (n *Notifier) Wait() { n.wg.Wait() }

func (n *Notifier) send(w Notice) {
	if n.Desktop {
		n.spawn(func(ctx context.Context) error { return desktop(ctx, w) }, "desktop notification")
	}
	if n.Webhook != "" {
		n.spawn(func(ctx context.Context) error { return n.post(ctx, w) }, "webhook")
	}
}

// spawn runs fn in the background with NotifyTimeout, unless
// maxInFlight sends are running already.
func (n *Notifier) spawn(fn func(context.Context) error, what string) {
	n.mu.Lock()
	if n.inFlight >= maxInFlight {
		n.mu.Unlock()
		n.logger().Warn("notification dropped: too many in flight", "kind", what)
		return
	}
	n.inFlight++
	n.mu.Unlock()
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		defer func() { n.mu.Lock(); n.inFlight--; n.mu.Unlock() }()
		ctx, cancel := context.WithTimeout(context.Background(), NotifyTimeout)
		defer cancel()
		if err := fn(ctx); err != nil {
			n.logger().Warn("notification failed", "kind", what, "err", err)
		}
	}()
}

func (n *Notifier) logger() *slog.Logger {
	if n.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return n.Log
}

// desktop runs notify-send (no shell: every text is one argument, after
// "--" so that none is taken for an option). Where it is not on PATH
// there is nothing to do.
func desktop(ctx context.Context, w Notice) error {
	path, err := exec.LookPath("notify-send")
	if err != nil {
		return nil
	}
	title := "sandbox: agent " + display.EscapeLine(w.Agent) + " is waiting"
	body := fmt.Sprintf("%s: %s (%d pending)", w.Request, w.Summary, w.Pending)
	cmd := exec.CommandContext(ctx, path, "--app-name=sandbox", "--", title, body)
	cmd.WaitDelay = time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("notify-send: %w: %s", err, display.Truncate(display.EscapeLine(string(out)), 200))
	}
	return nil
}

// post sends w as JSON to the webhook, once.
func (n *Notifier) post(ctx context.Context, w Notice) error {
	u, err := url.Parse(n.Webhook)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("webhook %q: not an http(s) URL", n.Webhook)
	}
	body, err := json.Marshal(w)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "sandbox-notify")
	resp, err := n.client().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("webhook: %s", resp.Status)
	}
	return nil
}

func (n *Notifier) client() *http.Client {
	if n.Client != nil {
		return n.Client
	}
	return &http.Client{Timeout: NotifyTimeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}
