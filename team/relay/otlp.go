package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
)

// OTLP exports audit records as OpenTelemetry logs over OTLP/HTTP with
// JSON (a SIEM's collector takes them): one log record per audit record,
// its line as the body, its fields as attributes, the machine, the
// project and the organisation as the resource.
type OTLP struct {
	URL    string // the collector's logs endpoint (…/v1/logs; added when the URL has no path)
	Client *http.Client

	pending []otlpRecord // records not accepted yet, oldest first
}

// maxOTLPPending bounds what waits for a collector that does not answer;
// beyond it the oldest are dropped (the NATS stream and the folder's log
// keep them all) and the drop is logged.
const maxOTLPPending = 20000

type otlpRecord struct {
	org, host, project string
	rec                audit.Record
}

func (o *OTLP) endpoint() string {
	u, err := url.Parse(o.URL)
	if err == nil && (u.Path == "" || u.Path == "/") {
		u.Path = "/v1/logs"
		return u.String()
	}
	return o.URL
}

// add queues a record for the next send.
func (o *OTLP) add(org, host, project string, rec audit.Record) (dropped int) {
	o.pending = append(o.pending, otlpRecord{org, host, project, rec})
	if n := len(o.pending) - maxOTLPPending; n > 0 {
		o.pending = append(o.pending[:0], o.pending[n:]...)
		return n
	}
	return 0
}

// send posts what is queued; on success the queue is empty.
func (o *OTLP) send(ctx context.Context) error {
	if len(o.pending) == 0 {
		return nil
	}
	body, err := json.Marshal(otlpBody(o.pending))
	if err != nil {
		return err
	}
	cl := o.Client
	if cl == nil {
		cl = &http.Client{Timeout: 10 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := cl.Do(req)
	if err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("otlp: the collector answered %s", resp.Status)
	}
	o.pending = o.pending[:0]
	return nil
}

type kv struct {
	Key   string         `json:"key"`
	Value map[string]any `json:"value"`
}

func str(k, v string) kv { return kv{k, map[string]any{"stringValue": v}} }

// otlpBody groups the records by resource (machine, project), as
// ExportLogsServiceRequest in its JSON encoding.
func otlpBody(recs []otlpRecord) map[string]any {
	type group struct {
		res  []kv
		logs []map[string]any
	}
	var order []string
	groups := map[string]*group{}
	for _, r := range recs {
		k := r.org + "\x00" + r.host + "\x00" + r.project
		g := groups[k]
		if g == nil {
			g = &group{res: []kv{str("service.name", "sandbox"), str("host.name", r.host), str("sandbox.org", r.org), str("sandbox.project", r.project)}}
			groups[k] = g
			order = append(order, k)
		}
		ts := strconv.FormatInt(r.rec.Time.UnixNano(), 10)
		g.logs = append(g.logs, map[string]any{
			"timeUnixNano": ts, "observedTimeUnixNano": ts, "severityNumber": 9, "severityText": "INFO",
			"body": map[string]any{"stringValue": string(r.rec.Line)},
			"attributes": []kv{
				{"sandbox.seq", map[string]any{"intValue": strconv.FormatUint(r.rec.Seq, 10)}},
				str("sandbox.event", r.rec.Event), str("sandbox.actor", r.rec.Actor),
				str("sandbox.request_id", r.rec.RequestID), str("sandbox.decision", r.rec.Decision),
				str("sandbox.content_hash", r.rec.ContentHash),
			},
		})
	}
	var rl []map[string]any
	for _, k := range order {
		g := groups[k]
		rl = append(rl, map[string]any{
			"resource":  map[string]any{"attributes": g.res},
			"scopeLogs": []map[string]any{{"scope": map[string]any{"name": "sandbox.audit"}, "logRecords": g.logs}},
		})
	}
	return map[string]any{"resourceLogs": rl}
}
