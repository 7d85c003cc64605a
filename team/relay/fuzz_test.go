package relay

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/team/natsconn"
)

// FuzzBoardMessages feeds the board what anyone allowed to publish on
// the organisation's subjects could send: any subject, any body. A
// request is shown only when it names itself as a relay would, on its
// own subject, in the board's organisation; an outcome takes a request
// off the board only when it is published on that request's own
// result subject.
func FuzzBoardMessages(f *testing.F) {
	good := Request{V: 1, Org: "acme", Host: "ws-a", Project: "pay", ID: "01good", Hash: "h", Kind: "shell",
		Summary: "ls", Display: "run: ls", Created: time.Unix(1e9, 0).UTC()}
	req, _ := json.Marshal(good)
	res, _ := json.Marshal(Result{V: 1, Org: "acme", Host: "ws-a", Project: "pay", ID: "01good"})
	f.Add(requestSubject("acme", "ws-a", "pay", "01good"), req, false)
	f.Add("sandbox.req.acme.ws-a.pay.01other", req, false)
	f.Add(resultSubject("acme", "ws-a", "pay", "01good"), res, true)
	f.Add(resultSubject("acme", "ws-a", "pay", "01other"), res, true)
	other, _ := json.Marshal(Result{V: 1, Org: "other", Host: "ws-a", Project: "pay", ID: "01good"})
	f.Add(resultSubject("other", "ws-a", "pay", "01good"), other, true) // another organisation's outcome
	f.Add("sandbox.req.acme.ws-b/pay.01x", []byte(`{"v":1,"org":"acme","host":"ws-b/pay","project":"x","id":"01x"}`), false)
	f.Add("sandbox.req.acme.ws-a.pay.x.01y", []byte(`{"v":1,"org":"acme","host":"ws-a","project":"pay.x","id":"01y"}`), false)
	goodKey := boardKey(good.Host, good.Project, good.ID)
	f.Fuzz(func(t *testing.T, subject string, data []byte, asResult bool) {
		b := &Board{Org: "acme"}
		b.init()
		b.pending[goodKey] = good
		m := &natsconn.Msg{Subject: subject, Data: data}
		if asResult {
			b.result(m)
			if _, ok := b.pending[goodKey]; !ok && subject != resultSubject(good.Org, good.Host, good.Project, good.ID) {
				t.Fatalf("an outcome on %q took %s off the board", subject, good.ID)
			}
			return
		}
		b.request(m)
		for k, r := range b.pending {
			if k == goodKey && r.Hash == good.Hash && r.Summary == good.Summary {
				continue // the one put there (a body naming it again on its own subject may replace it)
			}
			if r.Org != "acme" || !wellFormed(r.Org, r.Host, r.Project, r.ID) ||
				subject != requestSubject(r.Org, r.Host, r.Project, r.ID) || k != boardKey(r.Host, r.Project, r.ID) {
				t.Fatalf("shown from %q: %+v", subject, r)
			}
		}
	})
}
