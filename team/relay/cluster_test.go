package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/team"
	"github.com/sandbox-dev/sandbox/team/natsconn"
	"github.com/sandbox-dev/sandbox/team/natstest"
)

func startCluster(t *testing.T) []*server.Server { return natstest.StartCluster(t) }

func clusterURL(srvs []*server.Server) string { return natstest.URLs(srvs) }

// eventually retries f (a call that a cluster failing over may refuse
// for a while) until it succeeds or 45 s pass.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A three-node cluster loses a node while requests are in flight: the
// relay connects again by itself, nothing is lost and nothing runs twice;
// a relay that was away publishes its backlog in order when it is back,
// and local approval never waited for it.
func TestRelayClusterNodeLossAndReconnect(t *testing.T) {
	srvs := startCluster(t)
	url := clusterURL(srvs)
	alice := key(1)
	a := newMachine(t, "ws-a", "payments", "approvers:\n"+trust("alice", alice))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	dial := func(ctx context.Context) (*natsconn.Conn, error) {
		return natsconn.Connect(ctx, natsconn.Options{URL: url, Timeout: 2 * time.Second})
	}
	go func() { defer close(done); a.relay.Run(ctx, dial, 3) }()

	var approver *natsconn.Conn
	eventually(t, "the approver's connection", func() (err error) { approver, err = dial(context.Background()); return })
	defer func() { approver.Close() }()
	decide := func(id string) Result {
		t.Helper()
		var r Request
		eventually(t, id+" published", func() error {
			if approver.Err() != nil {
				approver, _ = dial(context.Background())
				if approver == nil {
					return errors.New("no connection")
				}
			}
			pend, err := Pending(tctx(t), approver, "acme")
			for _, p := range pend {
				if p.ID == id {
					r = p
					return nil
				}
			}
			return fmt.Errorf("not published yet (%v)", err)
		})
		var d team.Decision
		eventually(t, id+" decided", func() (err error) {
			d, err = Decide(tctx(t), approver, alice, r, team.Approve, "", "alice", time.Now())
			if err != nil && approver.Err() != nil {
				approver, _ = dial(context.Background())
			}
			return err
		})
		var res Result
		eventually(t, id+" carried out", func() (err error) {
			c, cerr := context.WithTimeout(context.Background(), 3*time.Second)
			defer cerr()
			res, err = Outcome(c, approver, r, d.Key)
			if err != nil && approver.Err() != nil {
				approver, _ = dial(context.Background())
			}
			return err
		})
		return res
	}

	id1 := a.submit(t, "echo one >> runs.txt")
	if res := decide(id1); res.Decision != queue.Approved {
		t.Fatalf("first: %+v", res)
	}
	// a node goes away mid-flight
	id2 := a.submit(t, "echo two >> runs.txt")
	srvs[0].Shutdown()
	id3 := a.submit(t, "echo three >> runs.txt")
	for _, id := range []string{id2, id3} {
		if res := decide(id); res.Decision != queue.Approved {
			t.Fatalf("%s: %+v", id, res)
		}
	}
	if got := readRuns(t, a); got != "one\ntwo\nthree\n" {
		t.Errorf("runs.txt = %q: each once, in order", got)
	}

	// the relay away: local approval goes on, and the backlog arrives in
	// order once it is back
	cancel()
	<-done
	local := a.submit(t, "echo local >> runs.txt")
	if _, err := a.f.Approver.Approve(context.Background(), local, approverOpts()); err != nil {
		t.Fatal(err)
	}
	var backlog []string
	for _, s := range []string{"b1", "b2", "b3"} {
		backlog = append(backlog, a.submit(t, "echo "+s+" >> runs.txt"))
		time.Sleep(3 * time.Millisecond) // ids order requests by the millisecond they were raised in
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	done2 := make(chan struct{})
	go func() { defer close(done2); a.relay.Run(ctx2, dial, 3) }()
	defer func() { cancel2(); <-done2 }()
	var order []string
	eventually(t, "the backlog published", func() error {
		all, err := requests(tctx(t), approver, "acme")
		if err != nil {
			approver, _ = dial(context.Background())
			return err
		}
		order = order[:0]
		for _, r := range all {
			for _, b := range backlog {
				if r.ID == b {
					order = append(order, r.ID)
				}
			}
		}
		if len(order) != 3 {
			return fmt.Errorf("%d of 3 published", len(order))
		}
		return nil
	})
	if strings.Join(order, ",") != strings.Join(backlog, ",") {
		t.Errorf("backlog published as %v, raised as %v", order, backlog)
	}
	for _, id := range backlog {
		decide(id)
	}
	if got := readRuns(t, a); got != "one\ntwo\nthree\nlocal\nb1\nb2\nb3\n" {
		t.Errorf("runs.txt = %q", got)
	}
	if n := len(auditEvents(t, a, "exec.end")); n != 7 {
		t.Errorf("%d executions, want 7", n)
	}
	// the audit records all reached the stream, each once
	eventually(t, "the audit stream caught up", func() error {
		si, err := approver.StreamInfo(tctx(t), AuditStream)
		if err != nil {
			approver, _ = dial(context.Background())
			return err
		}
		var local int
		readAll(t, a, func() { local++ })
		if int(si.State.Msgs) != local {
			return fmt.Errorf("stream %d, folder %d", si.State.Msgs, local)
		}
		return nil
	})
}
