package serve

import (
	"encoding/json"
	"net/http"
	"time"
)

// maxStream bounds what one output stream sends.
const maxStream = 64 << 20

// outputSafety is how often an output stream looks again without a
// notification (a missed event must not stall it).
const outputSafety = 2 * time.Second

// outputLine is one line of GET /api/requests/{id}/output: a chunk of
// escaped output, or the last line with the result.
type outputLine struct {
	Stream    string      `json:"stream,omitempty"`
	Text      string      `json:"text,omitempty"`
	Done      bool        `json:"done,omitempty"`
	Truncated bool        `json:"truncated,omitempty"`
	Result    *ResultView `json:"result,omitempty"`
}

// handleOutput streams a request's output as NDJSON
// (application/x-ndjson), from the start of its log, while it runs: one
// {"stream","text"} line per chunk (escaped), then {"done":true,
// "result":{...}} once it has a result. A request still pending is waited
// for. It ends when the client goes away.
func (s *Server) handleOutput(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	fs, err := s.locate(r.URL.Query().Get("folder"), id)
	if err != nil {
		fail(w, err)
		return
	}
	if _, _, err := fs.q.Load(id); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	st := &outputStream{w: w, enc: json.NewEncoder(w)}
	st.flusher, _ = w.(http.Flusher)
	tail := newLogTail(fs.f, id)
	defer tail.close()
	for {
		wake := fs.moved.wait()
		tail.drain(st.emit)
		if res, err := fs.q.Result(id); err == nil {
			tail.finish(res, st.emit)
			st.line(outputLine{Done: true, Result: viewResult(res), Truncated: st.sent > maxStream})
			return
		}
		st.flush()
		select {
		case <-r.Context().Done():
			return
		case <-s.runCtx.Done(): // the server is stopping
			return
		case <-wake:
		case <-time.After(outputSafety):
		}
	}
}

// outputStream writes NDJSON lines, flushing after each batch.
type outputStream struct {
	w       http.ResponseWriter
	enc     *json.Encoder
	flusher http.Flusher
	sent    int
}

func (o *outputStream) emit(stream, text string) {
	if o.sent > maxStream {
		return
	}
	o.sent += len(text)
	o.line(outputLine{Stream: stream, Text: text})
}

func (o *outputStream) line(l outputLine) {
	o.enc.Encode(l)
	o.flush()
}

func (o *outputStream) flush() {
	if o.flusher != nil {
		o.flusher.Flush()
	}
}
