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

// Anthropic is a fake Anthropic Messages API on 127.0.0.1: POST
// /v1/messages answered from a Script, streamed as SSE when asked.
type Anthropic struct {
	recorder
	// URL is the base URL to give the client (ANTHROPIC_BASE_URL).
	URL    string
	script Script
	srv    *http.Server
	ln     net.Listener
	ids    atomic.Int64
}

// StartAnthropic listens on a free loopback port and serves script.
func StartAnthropic(script Script) (*Anthropic, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake anthropic: %w", err)
	}
	a := &Anthropic{URL: "http://" + ln.Addr().String(), script: script, ln: ln}
	a.srv = &http.Server{Handler: http.HandlerFunc(a.serve)}
	go a.srv.Serve(ln)
	return a, nil
}

// Close stops the server.
func (a *Anthropic) Close() error { return a.srv.Close() }

type anthropicBody struct {
	Model    string             `json:"model"`
	Stream   bool               `json:"stream"`
	Tools    []json.RawMessage  `json:"tools"`
	Messages []anthropicMessage `json:"messages"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (a *Anthropic) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := &Request{Path: r.URL.Path, Body: body}
	a.add(req)
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages") {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"fake"}}`, http.StatusNotFound)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":10}`)
		return
	}
	var b anthropicBody
	if err := json.Unmarshal(body, &b); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	parseAnthropic(req, &b)
	reply := Reply{Text: "ok"}
	if req.Main {
		reply = a.script(req)
	}
	if b.Stream {
		a.stream(w, b.Model, reply)
		return
	}
	a.whole(w, b.Model, reply)
}

func parseAnthropic(req *Request, b *anthropicBody) {
	req.Main = len(b.Tools) > 0
	for _, m := range b.Messages {
		if m.Role == "assistant" {
			req.Turn++
		}
	}
	// the results are in the messages after the last assistant one
	// (Claude Code may add one of its own after them, such as a system
	// message saying a command changed the shell's directory)
	for i := len(b.Messages) - 1; i >= 0 && b.Messages[i].Role != "assistant"; i-- {
		req.Results = append(anthropicResults(b.Messages[i].Content), req.Results...)
	}
}

func anthropicResults(content json.RawMessage) []ToolResult {
	var blocks []anthropicBlock
	if json.Unmarshal(content, &blocks) != nil {
		return nil
	}
	var out []ToolResult
	for _, bl := range blocks {
		if bl.Type == "tool_result" {
			out = append(out, ToolResult{ID: bl.ToolUseID, Content: blockText(bl.Content), IsError: bl.IsError})
		}
	}
	return out
}

// blockText flattens a tool_result's content (a string or text blocks).
func blockText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []anthropicBlock
	json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (a *Anthropic) nextID(prefix string) string {
	return fmt.Sprintf("%s_fake%04d", prefix, a.ids.Add(1))
}

func stopReason(r Reply) string {
	if len(r.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func (a *Anthropic) stream(w http.ResponseWriter, model string, r Reply) {
	s := newSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": a.nextID("msg"), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 10, "output_tokens": 1},
	}})
	i := 0
	if r.Text != "" {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
			"content_block": map[string]any{"type": "text", "text": ""}})
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
			"delta": map[string]any{"type": "text_delta", "text": r.Text}})
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	for _, tc := range r.ToolCalls {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
			"content_block": map[string]any{"type": "tool_use", "id": a.toolID(tc), "name": tc.Name, "input": map[string]any{}}})
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": inputJSON(tc.Input)}})
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason(r), "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 10}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

func (a *Anthropic) toolID(tc ToolCall) string {
	if tc.ID != "" {
		return tc.ID
	}
	return a.nextID("toolu")
}

func (a *Anthropic) whole(w http.ResponseWriter, model string, r Reply) {
	var content []any
	if r.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": r.Text})
	}
	for _, tc := range r.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": a.toolID(tc), "name": tc.Name,
			"input": json.RawMessage(inputJSON(tc.Input))})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": a.nextID("msg"), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stopReason(r), "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 10, "output_tokens": 10},
	})
}
