package relay

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/team"
	"github.com/sandbox-dev/sandbox/team/natsconn"
)

func median(d []time.Duration) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2].Microseconds()) / 1000
}

// BenchmarkTeamRemoteApproval: on loopback, from a request raised on a
// machine to a remote approver seeing it, and from the approver's
// decision to the execution's start on the machine (the issue's
// figures: median at most 20 ms each).
func BenchmarkTeamRemoteApproval(b *testing.B) {
	s := startServer(b)
	alice := key(1)
	m := newMachine(b, "ws-a", "payments", "approvers:\n"+trust("alice", alice))
	m.run(b, s.ClientURL())
	c, err := natsconn.Connect(context.Background(), natsconn.Options{URL: s.ClientURL()})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	sub, err := c.Subscribe("sandbox.req.>", 64)
	if err != nil {
		b.Fatal(err)
	}
	c.Flush(context.Background())
	var visible, toStart []time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		id := m.submit(b, "true")
		var r Request
		for r.ID != id {
			msg := <-sub.C()
			json.Unmarshal(msg.Data, &r)
		}
		visible = append(visible, time.Since(t0))
		t1 := time.Now()
		if _, err := Decide(context.Background(), c, alice, r, team.Approve, "", "alice", t1); err != nil {
			b.Fatal(err)
		}
		for {
			res, err := m.q.Result(id)
			if err == nil {
				toStart = append(toStart, res.Started.Sub(t1))
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	b.StopTimer()
	b.ReportMetric(median(visible), "ms-to-visible")
	b.ReportMetric(median(toStart), "ms-decision-to-start")
}

// BenchmarkTeamThroughput: 1,000 requests raised on 10 machines, each
// with its relay, approved by 2 remote approvers deciding everything
// they see: each runs exactly once; requests per second reported.
func BenchmarkTeamThroughput(b *testing.B) {
	machines, each := 10, 100
	if testing.Short() {
		machines, each = 2, 10
	}
	s := startServer(b)
	alice, bob := key(1), key(2)
	pol := "approvers:\n" + trust("alice", alice) + trust("bob", bob)
	var ms []*machine
	for i := range machines {
		m := newMachine(b, fmt.Sprintf("ws-%d", i), "proj", pol)
		m.run(b, s.ClientURL())
		ms = append(ms, m)
	}
	for range b.N {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for _, k := range []struct {
			name string
			key  ed25519.PrivateKey
		}{{"alice", alice}, {"bob", bob}} {
			c, err := natsconn.Connect(ctx, natsconn.Options{URL: s.ClientURL()})
			if err != nil {
				b.Fatal(err)
			}
			sub, err := c.Subscribe("sandbox.req.>", 4096)
			if err != nil {
				b.Fatal(err)
			}
			c.Flush(ctx)
			wg.Go(func() {
				defer c.Close()
				for {
					select {
					case <-ctx.Done():
						return
					case msg := <-sub.C():
						var r Request
						if json.Unmarshal(msg.Data, &r) == nil {
							Decide(ctx, c, k.key, r, team.Approve, "", k.name, time.Now())
						}
					}
				}
			})
		}
		start := time.Now()
		var ids [][]string
		for _, m := range ms {
			var mine []string
			for range each {
				mine = append(mine, m.submit(b, "true"))
			}
			ids = append(ids, mine)
		}
		for i, m := range ms {
			for _, id := range ids[i] {
				for {
					if res, err := m.q.Result(id); err == nil {
						if res.Decision != queue.Approved {
							b.Fatalf("%s: %s", id, res.Decision)
						}
						break
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
		}
		elapsed := time.Since(start)
		cancel()
		wg.Wait()
		runs := 0
		for _, m := range ms {
			runs += len(auditEvents(b, m, "exec.end"))
		}
		if runs != machines*each*(b.N) && b.N == 1 {
			b.Fatalf("%d executions of %d requests", runs, machines*each)
		}
		b.ReportMetric(float64(machines*each)/elapsed.Seconds(), "requests/s")
	}
}

// BenchmarkTeamPendingWeek: what a remote approver reads when it
// connects (`list --nats`, a board's first look): 2,000 requests, a
// quarter of them with outcomes. Each stored message is a round trip;
// on loopback a round trip is short, over a WAN it is everything.
func BenchmarkTeamPendingWeek(b *testing.B) {
	s := startServer(b)
	ctx := context.Background()
	c, err := natsconn.Connect(ctx, natsconn.Options{URL: s.ClientURL()})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if err := Setup(ctx, c, 1); err != nil {
		b.Fatal(err)
	}
	for i := range 2000 {
		r := Request{V: 1, Org: "acme", Host: "ws-a", Project: "pay", ID: fmt.Sprintf("01w%05d", i), Hash: "h", Kind: "shell", Summary: "ls", Display: "run: ls", Created: time.Now()}
		data, _ := json.Marshal(r)
		if _, err := c.PublishJS(ctx, requestSubject(r.Org, r.Host, r.Project, r.ID), nil, data); err != nil {
			b.Fatal(err)
		}
		if i%4 == 0 {
			data, _ := json.Marshal(Result{V: 1, Org: r.Org, Host: r.Host, Project: r.Project, ID: r.ID})
			if _, err := c.PublishJS(ctx, resultSubject(r.Org, r.Host, r.Project, r.ID), nil, data); err != nil {
				b.Fatal(err)
			}
		}
	}
	for b.Loop() {
		p, err := Pending(ctx, c, "acme")
		if err != nil || len(p) != 1500 {
			b.Fatalf("%d pending, %v", len(p), err)
		}
	}
}
