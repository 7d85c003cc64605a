package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
)

// Responses is a fake OpenAI Responses API on 127.0.0.1: POST
// /v1/responses answered from a Script and streamed as SSE, for Codex with
// a custom model provider (wire_api = "responses").
type Responses struct {
	recorder
	// URL is the provider's base URL, ending in /v1.
	URL    string
	script Script
	srv    *http.Server
	ids    atomic.Int64
}

// StartResponses listens on a free loopback port and serves script.
func StartResponses(script Script) (*Responses, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake responses: %w", err)
	}
	r := &Responses{URL: "http://" + ln.Addr().String() + "/v1", script: script}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve)}
	go r.srv.Serve(ln)
	return r, nil
}

// Close stops the server.
func (r *Responses) Close() error { return r.srv.Close() }

type responsesBody struct {
	Tools []json.RawMessage `json:"tools"`
	Input []responsesItem   `json:"input"`
}

type responsesItem struct {
	Type   string          `json:"type"`
	Role   string          `json:"role"`
	CallID string          `json:"call_id"`
	Output json.RawMessage `json:"output"`
}

func (r *Responses) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(hr.Body, 64<<20))
	req := &Request{Path: hr.URL.Path, Body: body}
	r.add(req)
	if hr.Method != http.MethodPost || !strings.HasSuffix(hr.URL.Path, "/responses") {
		http.Error(w, `{"error":{"message":"fake: not found"}}`, http.StatusNotFound)
		return
	}
	var b responsesBody
	if err := json.Unmarshal(body, &b); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	parseResponses(req, &b)
	reply := Reply{Text: "ok"}
	if req.Main {
		reply = r.script(req)
	}
	r.stream(w, reply)
}

// parseResponses counts model turns (each run of consecutive items the
// model produced is one turn) and collects the trailing tool outputs.
func parseResponses(req *Request, b *responsesBody) {
	req.Main = len(b.Tools) > 0
	inModel := false
	for _, it := range b.Input {
		byModel := it.Type == "function_call" || it.Type == "reasoning" ||
			it.Type == "custom_tool_call" || (it.Type == "message" && it.Role == "assistant")
		if byModel && !inModel {
			req.Turn++
		}
		inModel = byModel
		if it.Type == "message" && it.Role == "user" {
			req.Results = nil
		}
		if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
			req.Results = append(req.Results, ToolResult{ID: it.CallID, Content: outputText(it.Output)})
		}
	}
}

// outputText flattens a function_call_output's output (a string, an
// object with content, or content items).
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var items []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &items) == nil {
		var parts []string
		for _, i := range items {
			parts = append(parts, i.Text)
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

func (r *Responses) stream(w http.ResponseWriter, reply Reply) {
	s := newSSE(w)
	id := fmt.Sprintf("resp_fake%04d", r.ids.Add(1))
	s.event("response.created", map[string]any{"type": "response.created",
		"response": map[string]any{"id": id, "object": "response", "status": "in_progress", "output": []any{}}})
	var output []any
	if reply.Text != "" {
		output = append(output, r.message(s, len(output), reply.Text))
	}
	for _, tc := range reply.ToolCalls {
		output = append(output, r.call(s, len(output), tc))
	}
	s.event("response.completed", map[string]any{"type": "response.completed",
		"response": map[string]any{"id": id, "object": "response", "status": "completed", "output": output,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 10, "total_tokens": 20,
				"input_tokens_details":  map[string]int{"cached_tokens": 0},
				"output_tokens_details": map[string]int{"reasoning_tokens": 0}}}})
}

func (r *Responses) message(s *sse, idx int, text string) any {
	id := fmt.Sprintf("msg_fake%04d", r.ids.Add(1))
	s.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": idx,
		"item": map[string]any{"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []any{}}})
	s.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta",
		"item_id": id, "output_index": idx, "content_index": 0, "delta": text})
	item := map[string]any{"type": "message", "id": id, "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	s.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": idx, "item": item})
	return item
}

func (r *Responses) call(s *sse, idx int, tc ToolCall) any {
	callID := tc.ID
	if callID == "" {
		callID = fmt.Sprintf("call_fake%04d", r.ids.Add(1))
	}
	item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_fake%04d", r.ids.Add(1)),
		"call_id": callID, "name": tc.Name, "arguments": inputJSON(tc.Input), "status": "completed"}
	if tc.Namespace != "" {
		item["namespace"] = tc.Namespace
	}
	s.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": idx, "item": item})
	s.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": idx, "item": item})
	return item
}
