// Package fakemodel is a scripted stand-in for the model APIs that agent
// CLIs talk to (Anthropic Messages, OpenAI Responses, Gemini), plus an
// egress trap to point their proxy variables at, so that end-to-end tests
// run a real Claude Code, Codex or Gemini CLI binary offline and see
// exactly what it sends back.
package fakemodel

import (
	"encoding/json"
	"sync"
)

// ToolCall is a tool the fake model asks the client to run.
type ToolCall struct {
	ID    string
	Name  string
	Input any // marshalled to JSON as the tool's arguments
	// Namespace, for the Responses API, is the namespace of a namespaced
	// tool (Codex offers an MCP server's tools in "mcp__SERVER").
	Namespace string
}

// Reply is what the fake model answers on one turn: optional text, then
// tool calls (none ends the conversation).
type Reply struct {
	Text      string
	ToolCalls []ToolCall
}

// ToolResult is a tool's outcome as the client reported it to the model.
type ToolResult struct {
	ID      string
	Content string
	IsError bool
}

// Request is one call the client made to the fake model.
type Request struct {
	Path string
	Body json.RawMessage
	// Turn is the number of assistant messages already in the
	// conversation: 0 on the first call of a session.
	Turn int
	// Main is set when the request carries tools (the agent loop), as
	// opposed to side calls such as titles or summaries.
	Main bool
	// Results are the tool results in the request's last user message.
	Results []ToolResult
}

// Script decides the reply to a main-loop request.
type Script func(req *Request) Reply

// recorder keeps every request for the test to inspect.
type recorder struct {
	mu sync.Mutex
	// reqs is every request received, in order.
	reqs []*Request
}

func (r *recorder) add(req *Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
}

// Requests returns a copy of every request received so far.
func (r *recorder) Requests() []*Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Request(nil), r.reqs...)
}

// MainRequests returns the agent-loop requests received so far.
func (r *recorder) MainRequests() []*Request {
	var out []*Request
	for _, q := range r.Requests() {
		if q.Main {
			out = append(out, q)
		}
	}
	return out
}

// inputJSON marshals a tool call's input, "{}" when nil.
func inputJSON(v any) string {
	if v == nil {
		return "{}"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(b)
}
