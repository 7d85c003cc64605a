package serve

import (
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// folderMemory is the real remembered decisions of the folder a request
// runs in (the harness makes its folders after its memory).
type folderMemory struct{ st *userstate.State }

func (m folderMemory) of(req *queue.Request) *approver.PolicyMemory {
	f, _ := folder.New(req.Cwd)
	return approver.NewPolicyMemory(f, m.st, slog.New(slog.DiscardHandler))
}

func (m folderMemory) Propose(req *queue.Request) (string, error) { return m.of(req).Propose(req) }
func (m folderMemory) Check(req *queue.Request, p string) error   { return m.of(req).Check(req, p) }
func (m folderMemory) Remember(req *queue.Request, p string, who approver.Identity) error {
	return m.of(req).Remember(req, p, who)
}
func (m folderMemory) Match(req *queue.Request) (approver.Remembered, bool) {
	return m.of(req).Match(req)
}
func (m folderMemory) CheckParts(req *queue.Request, rs []policy.Remembered) error {
	return m.of(req).CheckParts(req, rs)
}
func (m folderMemory) RememberParts(req *queue.Request, rs []policy.Remembered, who approver.Identity) error {
	return m.of(req).RememberParts(req, rs, who)
}

// The dashboard shows why a request asks and the general pattern beside
// the exact one; sending the general pattern back remembers it, and it
// then approves another request of the same shape.
func TestApproveAlwaysGeneralPattern(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessMem(t, 1, testAddr, folderMemory{st})
	p := h.projects[0]
	if err := store.Accept(p.f, st, policy.DefaultYAML()); err != nil {
		t.Fatal(err)
	}
	req := p.submit(t, "numfmt --grouping a.txt </dev/null")
	v := h.pending(t, 1)[0]
	if v.Review == nil || len(v.Review.Always) != 1 || v.Review.Always[0].General != "numfmt **" || v.Pattern != "numfmt --grouping a.txt" {
		t.Fatalf("review %+v pattern %q", v.Review, v.Pattern)
	}
	if !strings.Contains(v.Review.Why, "the narrowest rule that would allow it: shell allow \"numfmt --grouping a.txt\"") {
		t.Errorf("why %q", v.Review.Why)
	}
	// A pattern that is neither the proposal nor the general one is
	// checked by the approver as typed (here: it does not cover the request).
	if w := h.do(t, "POST", "/api/requests/"+req.ID+"/approve", `{"always":true,"pattern":"numfmt -x **","hash":"`+req.Hash+`"}`); w.Code == 200 {
		t.Fatalf("a pattern that does not cover it: %d %s", w.Code, w.Body)
	}
	var dv decisionView
	decode(t, h.do(t, "POST", "/api/requests/"+req.ID+"/approve", `{"always":true,"pattern":"numfmt **","hash":"`+req.Hash+`"}`), 200, &dv)
	if dv.Result == nil || dv.Result.Always != "numfmt **" {
		t.Fatalf("result %+v", dv.Result)
	}
	next := p.submit(t, "numfmt b.txt </dev/null")
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		res, err := p.q.Result(next.ID)
		if err == nil {
			if res.Approver.Surface != approver.SurfaceRemembered || res.Decision != queue.Approved {
				t.Fatalf("auto result %+v", res)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the remembered general pattern was not applied")
		}
	}
}

// The Policy tab shows the policy in force and the remembered decisions,
// escaped, also when no change is pending.
func TestPolicyViewShowsPolicyAndRemembered(t *testing.T) {
	h := newHarness(t, 1)
	p := h.projects[0]
	os.WriteFile(p.f.Policy(), []byte("version: 1\n# \x1b[2J\n"), 0o644)
	h.policies.Accept(p.f, []byte("version: 1\n# \x1b[2J\n"))
	var pv struct{ Folders []PolicyView }
	decode(t, h.do(t, "GET", "/api/policy", ""), 200, &pv)
	v := pv.Folders[0]
	if v.Changed || !strings.Contains(v.Text, "version: 1") || strings.Contains(v.Text, "\x1b") {
		t.Errorf("text %q changed %v", v.Text, v.Changed)
	}
	if len(v.Remembered) != 1 || v.Remembered[0].Pattern != "npm install **" || strings.Contains(v.Remembered[0].By, "\x1b") {
		t.Errorf("remembered %+v", v.Remembered)
	}
}

// The third approval of the same shape answers with an offer of the
// narrowest rule covering the three; only that exact offer can be taken,
// and once taken it approves the next request of that shape by itself.
func TestApproveOnceOffersRuleOnThirdApproval(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessMem(t, 1, testAddr, folderMemory{st})
	p := h.projects[0]
	if err := store.Accept(p.f, st, policy.DefaultYAML()); err != nil {
		t.Fatal(err)
	}
	var last decisionView
	var id string
	for i, name := range []string{"a.txt", "b.txt", "c.txt"} {
		req := p.submit(t, "numfmt --grouping "+name+" </dev/null")
		h.pending(t, 1)
		decode(t, h.do(t, "POST", "/api/requests/"+req.ID+"/approve", `{"hash":"`+req.Hash+`"}`), 200, &last)
		if i < 2 && last.Offer != nil {
			t.Fatalf("offered after %d approvals: %+v", i+1, last.Offer)
		}
		id = req.ID
	}
	if last.Offer == nil || last.Offer.Pattern != "numfmt --grouping **" || !strings.Contains(last.Offer.Summary, "approved 3 times") {
		t.Fatalf("offer %+v", last.Offer)
	}
	if w := h.do(t, "POST", "/api/requests/"+id+"/remember", `{"pattern":"numfmt **"}`); w.Code != 404 {
		t.Fatalf("a pattern other than the offer: %d %s", w.Code, w.Body)
	}
	if w := h.do(t, "POST", "/api/requests/"+id+"/remember", `{"pattern":"numfmt --grouping **"}`); w.Code != 200 {
		t.Fatalf("taking the offer: %d %s", w.Code, w.Body)
	}
	if w := h.do(t, "POST", "/api/requests/"+id+"/remember", `{"pattern":"numfmt --grouping **"}`); w.Code != 404 {
		t.Fatalf("an offer taken twice: %d %s", w.Code, w.Body)
	}
	next := p.submit(t, "numfmt --grouping d.txt </dev/null")
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		res, err := p.q.Result(next.ID)
		if err == nil {
			if res.Approver.Surface != approver.SurfaceRemembered {
				t.Fatalf("auto result %+v", res)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the remembered rule was not applied")
		}
	}
}

// Approve always of a request with several escalated parts takes one
// rule per part (each as shown, escaped); rules that do not fit (one that
// lifts no part of it) are refused and nothing runs.
func TestApproveAlwaysPerPart(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessMem(t, 1, testAddr, folderMemory{st})
	p := h.projects[0]
	if err := store.Accept(p.f, st, policy.DefaultYAML()); err != nil {
		t.Fatal(err)
	}
	req := p.submit(t, "numfmt --grouping a.txt </dev/null && seq 3 >/dev/null; true")
	v := h.pending(t, 1)[0]
	if v.Review == nil || len(v.Review.Always) != 2 || v.Review.Always[0].General != "numfmt **" || v.Review.Always[1].Exact != "seq 3" {
		t.Fatalf("review %+v", v.Review)
	}
	bad := `{"always":true,"hash":"` + req.Hash + `","rules":[{"trigger":"shell","pattern":"numfmt **"},{"trigger":"shell","pattern":"curl **"}]}`
	if w := h.do(t, "POST", "/api/requests/"+req.ID+"/approve", bad); w.Code != 422 || !strings.Contains(w.Body.String(), "lifts no part") {
		t.Fatalf("a rule that lifts nothing: %d %s", w.Code, w.Body)
	}
	h.pending(t, 1) // released, still pending
	good := `{"always":true,"hash":"` + req.Hash + `","rules":[{"trigger":"shell","pattern":"numfmt **"},{"trigger":"shell","pattern":"seq 3"}]}`
	var dv decisionView
	decode(t, h.do(t, "POST", "/api/requests/"+req.ID+"/approve", good), 200, &dv)
	if dv.Result == nil || dv.Result.Always != "shell `numfmt **`; shell `seq 3`" {
		t.Fatalf("result %+v", dv.Result)
	}
}
