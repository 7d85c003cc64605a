package relay

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/team"
	"github.com/sandbox-dev/sandbox/team/natsconn"
	"github.com/sandbox-dev/sandbox/team/natstest"
)

// rolePermissions are docs/TEAM.md's table for organisation acme, host
// ws-a and the relay's consumer there.
func rolePermissions() map[string]*server.Permissions {
	perm := func(pub, sub []string) *server.Permissions {
		return &server.Permissions{Publish: &server.SubjectPermission{Allow: pub}, Subscribe: &server.SubjectPermission{Allow: sub}}
	}
	return map[string]*server.Permissions{
		"relay": perm([]string{
			"sandbox.req.acme.ws-a.>", "sandbox.res.acme.ws-a.>", "sandbox.ref.acme.ws-a.>", "sandbox.audit.acme.ws-a.>", "sandbox.out.acme.ws-a.>",
			"$JS.API.STREAM.CREATE.SANDBOX_REQUESTS", "$JS.API.STREAM.CREATE.SANDBOX_RESULTS", "$JS.API.STREAM.CREATE.SANDBOX_AUDIT",
			"$JS.API.STREAM.CREATE.KV_sandbox-decisions", "$JS.API.STREAM.MSG.GET.SANDBOX_AUDIT",
			"$JS.API.CONSUMER.CREATE.KV_sandbox-decisions.relay-acme-ws-a",
			"$JS.API.CONSUMER.MSG.NEXT.KV_sandbox-decisions.relay-acme-ws-a",
			"$JS.ACK.KV_sandbox-decisions.relay-acme-ws-a.>",
		}, []string{"_INBOX.>"}),
		"approver": perm([]string{
			"$KV.sandbox-decisions.acme.>", "$JS.API.STREAM.INFO.*", "$JS.API.STREAM.MSG.GET.*",
		}, []string{"_INBOX.>", "sandbox.req.acme.>", "sandbox.res.acme.>", "sandbox.out.acme.>"}),
		"auditor": perm([]string{"$JS.API.STREAM.INFO.SANDBOX_AUDIT", "$JS.API.STREAM.MSG.GET.SANDBOX_AUDIT"}, []string{"_INBOX.>"}),
	}
}

// The deployment guide's permissions, on a server configured with them:
// each role does its part of a remote approval, and nothing more (an
// approver cannot forge a request or an outcome, a relay cannot write a
// decision, an auditor cannot delete a record).
func TestRolePermissions(t *testing.T) {
	var users []*server.User
	for name, p := range rolePermissions() {
		users = append(users, &server.User{Username: name, Password: name + "-pw", Permissions: p})
	}
	s := natstest.Start(t, func(o *server.Options) { o.Users = users })
	hostport := strings.TrimPrefix(s.ClientURL(), "nats://")
	as := func(role string) *natsconn.Conn {
		c, err := natsconn.Connect(context.Background(), natsconn.Options{URL: "nats://" + role + ":" + role + "-pw@" + hostport})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	short := func() context.Context {
		c, cancel := context.WithTimeout(context.Background(), time.Second)
		t.Cleanup(cancel)
		return c
	}
	alice := key(1)
	a := newMachine(t, "ws-a", "payments", "approvers:\n"+trust("alice", alice))
	rc, ac, auc := as("relay"), as("approver"), as("auditor")
	if err := Setup(tctx(t), rc, 1); err != nil {
		t.Fatalf("the relay's setup: %v", err)
	}
	if err := a.relay.Attach(tctx(t), rc); err != nil {
		t.Fatalf("the relay's consumer: %v", err)
	}
	board := &Board{Org: "acme", Dial: func(ctx context.Context) (*natsconn.Conn, error) {
		return natsconn.Connect(ctx, natsconn.Options{URL: "nats://approver:approver-pw@" + hostport})
	}}
	bctx, stopBoard := context.WithCancel(context.Background())
	defer stopBoard()
	go board.Run(bctx)
	id := a.submit(t, "echo allowed-flow")
	if err := a.relay.Step(tctx(t), rc, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "the request on the approver's board", func() bool { _, ok := onBoard(board, id); return ok })
	r := find(t, ac, id)
	type outcome struct {
		res  Result
		live string
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		o.res, _, o.err = DecideAndFollow(tctx(t), ac, alice, r, team.Approve, "", "alice", time.Minute,
			func(_ string, p []byte) { o.live += string(p) })
		done <- o
	}()
	var o outcome
	for got := false; !got; {
		if err := a.relay.Step(tctx(t), rc, 200*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		select {
		case o = <-done:
			got = true
		default:
		}
	}
	if res, err := a.q.Result(id); err != nil || res.Decision != queue.Approved {
		t.Fatalf("the flow under the permissions: %+v %v", res, err)
	}
	if o.err != nil || o.res.Decision != queue.Approved || !strings.Contains(o.live, "allowed-flow") {
		t.Errorf("the approver's outcome and live output: %+v %q %v", o.res, o.live, o.err)
	}
	testenv.WaitFor(t, "the request off the approver's board", func() bool { _, ok := onBoard(board, id); return !ok })
	if _, err := auc.StreamInfo(tctx(t), AuditStream); err != nil {
		t.Errorf("the auditor reads the audit stream: %v", err)
	}

	// and nothing more
	forged := r
	forged.ID = "01forgedforgedforgedforged"
	if _, err := ac.PublishJS(short(), requestSubject("acme", "ws-a", "payments", forged.ID), nil, []byte(`{}`)); err == nil {
		t.Error("an approver published a request")
	}
	if _, err := ac.PublishJS(short(), resultSubject("acme", "ws-a", "payments", id), nil, []byte(`{}`)); err == nil {
		t.Error("an approver published an outcome")
	}
	if _, err := rc.KVCreate(short(), DecisionsKV, DecisionKey("acme", "ws-a", "payments", id, "x"), []byte(`{}`)); err == nil {
		t.Error("a relay wrote a decision")
	}
	if _, err := rc.PublishJS(short(), requestSubject("acme", "ws-b", "payments", "01other"), nil, []byte(`{}`)); err == nil {
		t.Error("a relay published for another host")
	}
	if err := auc.DeleteMsg(short(), AuditStream, 1); err == nil {
		t.Error("an auditor deleted an audit record")
	}
	if err := ac.Flush(short()); err != nil {
		t.Errorf("a refused subject ended the approver's connection: %v", err)
	}
}
