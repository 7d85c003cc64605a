package natsconn

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The JetStream API: JSON requests on $JS.API.* subjects.
const apiPrefix = "$JS.API."

// Headers JetStream reads on a publish.
const (
	HeaderMsgID           = "Nats-Msg-Id"                         // de-duplication within the stream's window
	HeaderExpectedLastSeq = "Nats-Expected-Last-Subject-Sequence" // the subject's last sequence must be this
)

// APIError is JetStream's refusal of an API call or a publish.
type APIError struct {
	Code        int    `json:"code"`
	ErrCode     int    `json:"err_code"`
	Description string `json:"description"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("jetstream: %s (%d, %d)", e.Description, e.Code, e.ErrCode)
}

// JetStream's error codes this package tells apart.
const (
	errCodeWrongLastSeq  = 10071
	errCodeNoMessage     = 10037
	errCodeStreamMissing = 10059
)

// Errors of the key-value calls.
var (
	ErrKeyExists   = errors.New("jetstream: the key exists already")
	ErrKeyNotFound = errors.New("jetstream: no such key")
	ErrNoStream    = errors.New("jetstream: no such stream")
)

// api makes one API call: req as JSON (nil: empty), the reply decoded into
// resp unless it is an error.
func (c *Conn) api(ctx context.Context, subject string, req, resp any) error {
	var body []byte
	if req != nil {
		var err error
		if body, err = json.Marshal(req); err != nil {
			return err
		}
	}
	m, err := c.Request(ctx, apiPrefix+subject, nil, body)
	if err != nil {
		if errors.Is(err, ErrNoReply) {
			return fmt.Errorf("jetstream is not enabled on this server (or this account): %w", err)
		}
		return err
	}
	return decodeAPI(m.Data, resp)
}

func decodeAPI(data []byte, resp any) error {
	var env struct {
		Error *APIError `json:"error"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("jetstream: bad reply %q: %w", truncate(string(data)), err)
	}
	if env.Error != nil {
		if env.Error.ErrCode == errCodeStreamMissing {
			return fmt.Errorf("%w: %w", ErrNoStream, env.Error)
		}
		return env.Error
	}
	if resp == nil {
		return nil
	}
	return json.Unmarshal(data, resp)
}

// StreamConfig is a stream's configuration (the fields team mode sets).
type StreamConfig struct {
	Name              string        `json:"name"`
	Subjects          []string      `json:"subjects,omitempty"`
	Retention         string        `json:"retention"` // limits
	Storage           string        `json:"storage"`   // file
	Discard           string        `json:"discard"`   // old, new
	Replicas          int           `json:"num_replicas"`
	MaxMsgs           int64         `json:"max_msgs"`
	MaxBytes          int64         `json:"max_bytes"`
	MaxAge            time.Duration `json:"max_age"`
	MaxMsgsPerSubject int64         `json:"max_msgs_per_subject"`
	MaxMsgSize        int32         `json:"max_msg_size"`
	Duplicates        time.Duration `json:"duplicate_window,omitempty"`
	DenyDelete        bool          `json:"deny_delete"`
	DenyPurge         bool          `json:"deny_purge"`
	AllowDirect       bool          `json:"allow_direct"`
	AllowRollup       bool          `json:"allow_rollup_hdrs"`
}

// StreamInfo is what the server says of a stream.
type StreamInfo struct {
	Config StreamConfig `json:"config"`
	State  struct {
		Msgs     uint64 `json:"messages"`
		FirstSeq uint64 `json:"first_seq"`
		LastSeq  uint64 `json:"last_seq"`
	} `json:"state"`
}

func (cfg *StreamConfig) defaults() {
	if cfg.Retention == "" {
		cfg.Retention = "limits"
	}
	if cfg.Storage == "" {
		cfg.Storage = "file"
	}
	if cfg.Discard == "" {
		cfg.Discard = "old"
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
	}
	for _, p := range []*int64{&cfg.MaxMsgs, &cfg.MaxBytes, &cfg.MaxMsgsPerSubject} {
		if *p == 0 {
			*p = -1
		}
	}
	if cfg.MaxMsgSize == 0 {
		cfg.MaxMsgSize = -1
	}
}

// AddStream creates the stream, or finds it made already with this
// configuration.
func (c *Conn) AddStream(ctx context.Context, cfg StreamConfig) (*StreamInfo, error) {
	if !validToken(cfg.Name) {
		return nil, fmt.Errorf("jetstream: bad stream name %q", cfg.Name)
	}
	cfg.defaults()
	var si StreamInfo
	if err := c.api(ctx, "STREAM.CREATE."+cfg.Name, cfg, &si); err != nil {
		return nil, err
	}
	return &si, nil
}

// StreamInfo asks for a stream's configuration and state.
func (c *Conn) StreamInfo(ctx context.Context, name string) (*StreamInfo, error) {
	var si StreamInfo
	if err := c.api(ctx, "STREAM.INFO."+name, nil, &si); err != nil {
		return nil, err
	}
	return &si, nil
}

// DeleteMsg asks the server to delete one message of a stream (which a
// stream with deny_delete refuses).
func (c *Conn) DeleteMsg(ctx context.Context, stream string, seq uint64) error {
	return c.api(ctx, "STREAM.MSG.DELETE."+stream, map[string]any{"seq": seq}, nil)
}

// PurgeStream asks the server to purge a stream (which one with
// deny_purge refuses).
func (c *Conn) PurgeStream(ctx context.Context, stream string) error {
	return c.api(ctx, "STREAM.PURGE."+stream, nil, nil)
}

// PubAck is JetStream's acknowledgement of a publish.
type PubAck struct {
	Stream    string `json:"stream"`
	Seq       uint64 `json:"seq"`
	Duplicate bool   `json:"duplicate,omitempty"`
}

// PublishJS publishes to a stream's subject and waits for the stream to
// store it.
func (c *Conn) PublishJS(ctx context.Context, subject string, hdr Header, data []byte) (PubAck, error) {
	var ack PubAck
	m, err := c.Request(ctx, subject, hdr, data)
	if err != nil {
		if errors.Is(err, ErrNoReply) {
			return ack, fmt.Errorf("jetstream: no stream takes %s: %w", subject, err)
		}
		return ack, err
	}
	if err := decodeAPI(m.Data, &ack); err != nil {
		return ack, err
	}
	if ack.Seq == 0 {
		return ack, fmt.Errorf("jetstream: no acknowledgement for %s: %q", subject, truncate(string(m.Data)))
	}
	return ack, nil
}

// ConsumerConfig is a durable pull consumer's configuration.
type ConsumerConfig struct {
	Durable       string        `json:"durable_name"`
	DeliverPolicy string        `json:"deliver_policy"` // all
	AckPolicy     string        `json:"ack_policy"`     // explicit
	AckWait       time.Duration `json:"ack_wait,omitempty"`
	MaxDeliver    int           `json:"max_deliver,omitempty"`
	FilterSubject string        `json:"filter_subject,omitempty"`
	MaxAckPending int           `json:"max_ack_pending,omitempty"`
	ReplayPolicy  string        `json:"replay_policy"` // instant
}

// AddConsumer creates a durable pull consumer on stream (or finds it
// made already with this configuration).
func (c *Conn) AddConsumer(ctx context.Context, stream string, cfg ConsumerConfig) error {
	if !validToken(stream) || !validToken(cfg.Durable) {
		return fmt.Errorf("jetstream: bad stream or consumer name %q, %q", stream, cfg.Durable)
	}
	if cfg.DeliverPolicy == "" {
		cfg.DeliverPolicy = "all"
	}
	if cfg.AckPolicy == "" {
		cfg.AckPolicy = "explicit"
	}
	if cfg.ReplayPolicy == "" {
		cfg.ReplayPolicy = "instant"
	}
	req := map[string]any{"stream_name": stream, "config": cfg}
	return c.api(ctx, "CONSUMER.CREATE."+stream+"."+cfg.Durable, req, nil)
}

// Fetch pulls up to batch messages from a durable consumer, waiting at
// most wait for the first.
func (c *Conn) Fetch(ctx context.Context, stream, consumer string, batch int, wait time.Duration) ([]*Msg, error) {
	if batch <= 0 {
		batch = 1
	}
	inbox := c.NewInbox()
	sub, err := c.Subscribe(inbox, batch+8)
	if err != nil {
		return nil, err
	}
	defer sub.Unsubscribe()
	req, _ := json.Marshal(map[string]any{"batch": batch, "expires": wait.Nanoseconds()})
	if err := c.Publish(apiPrefix+"CONSUMER.MSG.NEXT."+stream+"."+consumer, inbox, nil, req); err != nil {
		return nil, err
	}
	timer := time.NewTimer(wait + 2*time.Second)
	defer timer.Stop()
	var out []*Msg
	for len(out) < batch {
		select {
		case m, ok := <-sub.C():
			if !ok {
				return out, c.Err()
			}
			switch {
			case m.Status == 0:
				out = append(out, m)
			case m.Status == 100: // idle heartbeat
			case m.Status == 404 || m.Status == 408:
				return out, nil // no (more) messages
			default:
				return out, fmt.Errorf("jetstream: fetch from %s/%s: %d %s", stream, consumer, m.Status, m.Description)
			}
		case <-timer.C:
			return out, nil
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
	return out, nil
}

// Ack acknowledges a message fetched from a consumer, and waits for the
// server to have taken the acknowledgement.
func (c *Conn) Ack(ctx context.Context, m *Msg) error {
	if !strings.HasPrefix(m.Reply, "$JS.ACK.") {
		return errors.New("jetstream: not a consumer's message")
	}
	_, err := c.Request(ctx, m.Reply, nil, []byte("+ACK"))
	return err
}

// Meta is a consumer message's place: the stream's sequence and how many
// times it was delivered.
type Meta struct {
	Stream    string
	StreamSeq uint64
	Delivered uint64
}

// Meta reads m's reply subject: $JS.ACK.<stream>.<consumer>.<delivered>.
// <stream seq>.<consumer seq>.<time>.<pending>, with a domain and an
// account hash first on newer servers.
func (m *Msg) Meta() (Meta, bool) {
	t := strings.Split(m.Reply, ".")
	if len(t) < 9 || t[0] != "$JS" || t[1] != "ACK" {
		return Meta{}, false
	}
	stream, rest := t[2], t[4:]
	if len(t) >= 11 { // <domain>.<account hash> first
		stream, rest = t[4], t[6:]
	}
	d, err1 := strconv.ParseUint(rest[0], 10, 64)
	s, err2 := strconv.ParseUint(rest[1], 10, 64)
	if err1 != nil || err2 != nil {
		return Meta{}, false
	}
	return Meta{Stream: stream, StreamSeq: s, Delivered: d}, true
}

// validToken: a stream, consumer or bucket name (one subject token, no
// wildcard, no path separator).
func validToken(s string) bool {
	return s != "" && len(s) <= 255 && !strings.ContainsAny(s, ".*> \t\r\n/\\")
}

// AddKV creates a key-value bucket (a stream named KV_<bucket>, as every
// NATS client makes it) keeping history values per key; deletes and
// purges are refused.
func (c *Conn) AddKV(ctx context.Context, bucket string, replicas int, history int64) error {
	if !validToken(bucket) {
		return fmt.Errorf("jetstream: bad bucket name %q", bucket)
	}
	if history <= 0 {
		history = 1
	}
	_, err := c.AddStream(ctx, StreamConfig{Name: "KV_" + bucket, Subjects: []string{"$KV." + bucket + ".>"},
		Discard: "new", Replicas: replicas, MaxMsgsPerSubject: history, Duplicates: 2 * time.Minute,
		DenyDelete: true, DenyPurge: true, AllowDirect: true})
	return err
}

// KVCreate writes key's first value; ErrKeyExists when it has one: of
// two writers exactly one wins.
func (c *Conn) KVCreate(ctx context.Context, bucket, key string, value []byte) (uint64, error) {
	if !validSubject(key, false) {
		return 0, fmt.Errorf("jetstream: bad key %q", key)
	}
	ack, err := c.PublishJS(ctx, "$KV."+bucket+"."+key, Header{HeaderExpectedLastSeq: {"0"}}, value)
	var ae *APIError
	if errors.As(err, &ae) && ae.ErrCode == errCodeWrongLastSeq {
		return 0, fmt.Errorf("%s: %w", key, ErrKeyExists)
	}
	return ack.Seq, err
}

// KVEntry is a key's value as stored.
type KVEntry struct {
	Key   string
	Value []byte
	Seq   uint64
	Time  time.Time
}

// StoredMsg is a message as a stream keeps it.
type StoredMsg struct {
	Subject string
	Seq     uint64
	Data    []byte
	Time    time.Time
}

// GetMsg reads a stream's message by sequence.
func (c *Conn) GetMsg(ctx context.Context, stream string, seq uint64) (*StoredMsg, error) {
	return c.getMsg(ctx, stream, map[string]any{"seq": seq})
}

// NextMsg reads a stream's first message at or after seq whose subject
// matches subject (wildcards allowed).
func (c *Conn) NextMsg(ctx context.Context, stream, subject string, seq uint64) (*StoredMsg, error) {
	return c.getMsg(ctx, stream, map[string]any{"seq": seq, "next_by_subj": subject})
}

// LastMsg reads a stream's last message on subject.
func (c *Conn) LastMsg(ctx context.Context, stream, subject string) (*StoredMsg, error) {
	return c.getMsg(ctx, stream, map[string]any{"last_by_subj": subject})
}

// ErrNoMsg: no such message.
var ErrNoMsg = errors.New("jetstream: no such message")

func (c *Conn) getMsg(ctx context.Context, stream string, req map[string]any) (*StoredMsg, error) {
	var resp struct {
		Message struct {
			Subject string    `json:"subject"`
			Seq     uint64    `json:"seq"`
			Data    string    `json:"data"`
			Time    time.Time `json:"time"`
		} `json:"message"`
	}
	err := c.api(ctx, "STREAM.MSG.GET."+stream, req, &resp)
	var ae *APIError
	if errors.As(err, &ae) && (ae.ErrCode == errCodeNoMessage || ae.Code == 404) {
		return nil, ErrNoMsg
	}
	if err != nil {
		return nil, err
	}
	data, err := base64.StdEncoding.DecodeString(resp.Message.Data)
	if err != nil {
		return nil, fmt.Errorf("jetstream: a stored message's data: %w", err)
	}
	return &StoredMsg{Subject: resp.Message.Subject, Seq: resp.Message.Seq, Data: data, Time: resp.Message.Time}, nil
}

// KVGet reads key's last value.
func (c *Conn) KVGet(ctx context.Context, bucket, key string) (*KVEntry, error) {
	m, err := c.LastMsg(ctx, "KV_"+bucket, "$KV."+bucket+"."+key)
	if errors.Is(err, ErrNoMsg) {
		return nil, fmt.Errorf("%s: %w", key, ErrKeyNotFound)
	}
	if err != nil {
		return nil, err
	}
	return &KVEntry{Key: key, Value: m.Data, Seq: m.Seq, Time: m.Time}, nil
}
