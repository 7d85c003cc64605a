package natsconn

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
	"github.com/sandbox-dev/sandbox/team/natstest"
)

// startServer runs a real nats-server in this process, JetStream on.
func startServer(t *testing.T, set func(*server.Options)) *server.Server {
	return natstest.Start(t, set)
}

func connect(t *testing.T, url string, o Options) *Conn {
	t.Helper()
	o.URL = url
	c, err := Connect(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestPubSubRequest(t *testing.T) {
	s := startServer(t, nil)
	a, b := connect(t, s.ClientURL(), Options{Name: "a"}), connect(t, s.ClientURL(), Options{Name: "b"})
	sub, err := b.Subscribe("team.>", 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish("team.req.1", "", Header{"X-Hash": {"abc"}, "X-Two": {"1", "2"}}, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish("team.plain", "", nil, []byte("")); err != nil {
		t.Fatal(err)
	}
	m := <-sub.C()
	if m.Subject != "team.req.1" || string(m.Data) != "hello" || m.Header.Get("X-Hash") != "abc" || len(m.Header["X-Two"]) != 2 {
		t.Errorf("got %+v", m)
	}
	if m := <-sub.C(); m.Subject != "team.plain" || len(m.Data) != 0 || m.Header != nil {
		t.Errorf("got %+v", m)
	}

	// a responder, and a request with nobody listening
	resp, err := b.Subscribe("svc.echo", 64)
	if err != nil {
		t.Fatal(err)
	}
	b.Flush(ctx(t))
	go func() {
		for m := range resp.C() {
			b.Publish(m.Reply, "", nil, append([]byte("echo:"), m.Data...))
		}
	}()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			r, err := a.Request(ctx(t), "svc.echo", nil, []byte{byte('a' + i)})
			if err != nil || string(r.Data) != "echo:"+string(rune('a'+i)) {
				t.Errorf("request %d: %v %+v", i, err, r)
			}
		})
	}
	wg.Wait()
	if _, err := a.Request(ctx(t), "svc.nobody", nil, nil); !errors.Is(err, ErrNoReply) {
		t.Errorf("nobody listening: %v", err)
	}
	for _, bad := range []string{"", "a..b", "a b", "a.*", "a.>", "a.\x00"} {
		if err := a.Publish(bad, "", nil, nil); !errors.Is(err, ErrBadSubject) {
			t.Errorf("publish to %q: %v", bad, err)
		}
	}
	if err := sub.Unsubscribe(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-sub.C(); ok {
		t.Error("an unsubscribed channel is still open")
	}
	if a.ServerVersion() == "" {
		t.Error("the server's INFO gave no version")
	}
	// a subscriber that does not keep up loses messages, and is told
	slow, err := b.Subscribe("slow.x", 1)
	if err != nil {
		t.Fatal(err)
	}
	b.Flush(ctx(t))
	for range 5 {
		a.Publish("slow.x", "", nil, nil)
	}
	a.Flush(ctx(t))
	b.Flush(ctx(t))
	if err := slow.Err(); !errors.Is(err, ErrSlow) {
		t.Errorf("a slow subscriber: %v", err)
	}
	a.Close()
	if err := a.Publish("team.x", "", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("publish after Close: %v", err)
	}
	<-a.Done()
}

func TestAuth(t *testing.T) {
	s := startServer(t, func(o *server.Options) { o.Username, o.Password = "relay", "s3cret" })
	port := strings.TrimPrefix(s.ClientURL(), "nats://")
	if _, err := Connect(ctx(t), Options{URL: "nats://relay:wrong@" + port}); err == nil || !strings.Contains(err.Error(), "Authorization Violation") {
		t.Errorf("a wrong password: %v", err)
	}
	connect(t, "nats://relay:s3cret@"+port, Options{})

	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	seed, _ := kp.Seed()
	other, _ := nkeys.CreateUser()
	otherSeed, _ := other.Seed()
	s2 := startServer(t, func(o *server.Options) { o.Nkeys = []*server.NkeyUser{{Nkey: pub}} })
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.nk"), filepath.Join(dir, "bad.nk")
	os.WriteFile(good, []byte("-----BEGIN USER NKEY SEED-----\n"+string(seed)+"\n------END USER NKEY SEED------\n"), 0o600)
	os.WriteFile(bad, otherSeed, 0o600)
	connect(t, s2.ClientURL(), Options{Creds: good})
	if _, err := Connect(ctx(t), Options{URL: s2.ClientURL(), Creds: bad}); err == nil {
		t.Error("another user's seed was let in")
	}
	broken := filepath.Join(dir, "broken.nk")
	os.WriteFile(broken, []byte(strings.Replace(string(seed), "A", "B", 1)), 0o600)
	if _, err := Connect(ctx(t), Options{URL: s2.ClientURL(), Creds: broken}); err == nil || !strings.Contains(err.Error(), "not a user nkey seed") {
		t.Errorf("a seed with a bad checksum: %v", err)
	}
}

func TestJetStream(t *testing.T) {
	s := startServer(t, nil)
	c := connect(t, s.ClientURL(), Options{})
	if _, err := c.AddStream(ctx(t), StreamConfig{Name: "AUDIT", Subjects: []string{"audit.>"}, DenyDelete: true, DenyPurge: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddStream(ctx(t), StreamConfig{Name: "AUDIT", Subjects: []string{"audit.>"}, DenyDelete: true, DenyPurge: true}); err != nil {
		t.Errorf("the same stream again: %v", err)
	}
	var seqs []uint64
	for i := range 5 {
		ack, err := c.PublishJS(ctx(t), "audit.host1.proj", Header{HeaderMsgID: {"rec-" + string(rune('0'+i))}}, []byte{byte(i)})
		if err != nil || ack.Stream != "AUDIT" || ack.Duplicate {
			t.Fatalf("publish %d: %+v %v", i, ack, err)
		}
		seqs = append(seqs, ack.Seq)
	}
	if ack, err := c.PublishJS(ctx(t), "audit.host1.proj", Header{HeaderMsgID: {"rec-0"}}, []byte{0}); err != nil || !ack.Duplicate || ack.Seq != seqs[0] {
		t.Errorf("a re-sent record was stored twice: %+v %v", ack, err)
	}
	if _, err := c.PublishJS(ctx(t), "nostream.x", nil, nil); err == nil {
		t.Error("a publish no stream takes was acknowledged")
	}
	if err := c.DeleteMsg(ctx(t), "AUDIT", seqs[2]); err == nil {
		t.Error("a stream that denies deletes deleted a record")
	}
	if err := c.PurgeStream(ctx(t), "AUDIT"); err == nil {
		t.Error("a stream that denies purges was purged")
	}
	si, err := c.StreamInfo(ctx(t), "AUDIT")
	if err != nil || si.State.Msgs != 5 {
		t.Errorf("stream info: %+v %v", si, err)
	}
	if _, err := c.StreamInfo(ctx(t), "NOPE"); !errors.Is(err, ErrNoStream) {
		t.Errorf("a missing stream: %v", err)
	}

	// a durable consumer: fetched and acknowledged once, across connections
	if err := c.AddConsumer(ctx(t), "AUDIT", ConsumerConfig{Durable: "relay", AckWait: time.Second}); err != nil {
		t.Fatal(err)
	}
	got, err := c.Fetch(ctx(t), "AUDIT", "relay", 3, time.Second)
	if err != nil || len(got) != 3 {
		t.Fatalf("fetch: %d %v", len(got), err)
	}
	for i, m := range got {
		meta, ok := m.Meta()
		if !ok || meta.StreamSeq != seqs[i] || meta.Delivered != 1 || meta.Stream != "AUDIT" {
			t.Errorf("meta %d: %+v %v (%s)", i, meta, ok, m.Reply)
		}
		if i < 2 {
			if err := c.Ack(ctx(t), m); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.Close()
	c2 := connect(t, s.ClientURL(), Options{})
	time.Sleep(1100 * time.Millisecond) // the unacknowledged one's ack wait passes
	got, err = c2.Fetch(ctx(t), "AUDIT", "relay", 3, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var order []uint64
	for _, m := range got {
		meta, _ := m.Meta()
		order = append(order, meta.StreamSeq)
		c2.Ack(ctx(t), m)
	}
	// the third (never acknowledged) comes again, the acknowledged never
	if len(order) != 3 || !slices.Contains(order, seqs[2]) || !slices.Contains(order, seqs[3]) || !slices.Contains(order, seqs[4]) {
		t.Errorf("after a reconnect: %v, want seqs %v (3 again, 4, 5)", order, seqs[2:])
	}
	if more, _ := c2.Fetch(ctx(t), "AUDIT", "relay", 10, 300*time.Millisecond); len(more) != 0 {
		t.Errorf("%d delivered again after their acknowledgement", len(more))
	}
}

// Of many writers of one key, exactly one creates it.
func TestKVCreateOnly(t *testing.T) {
	s := startServer(t, nil)
	c := connect(t, s.ClientURL(), Options{})
	if err := c.AddKV(ctx(t), "decisions", 1, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := c.KVGet(ctx(t), "decisions", "req1"); !errors.Is(err, ErrKeyNotFound) {
		t.Errorf("an absent key: %v", err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins, losses := 0, 0
	for i := range 8 {
		wg.Go(func() {
			w := connect(t, s.ClientURL(), Options{})
			_, err := w.KVCreate(ctx(t), "decisions", "host1.proj.req1", []byte{byte(i)})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case errors.Is(err, ErrKeyExists):
				losses++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if wins != 1 || losses != 7 {
		t.Errorf("%d writers won, %d lost; want exactly one", wins, losses)
	}
	e, err := c.KVGet(ctx(t), "decisions", "host1.proj.req1")
	if err != nil || len(e.Value) != 1 || e.Seq == 0 {
		t.Errorf("get: %+v %v", e, err)
	}
	if _, err := c.KVCreate(ctx(t), "decisions", "bad key", nil); err == nil {
		t.Error("a key with a blank was written")
	}
}
