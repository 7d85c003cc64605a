package main

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// The hook server answers agents, not web pages: a page in the user's
// browser may post to any loopback port, and an event it planted would
// become a request a human might approve.
func TestHookdAgentRequest(t *testing.T) {
	tests := []struct {
		name   string
		host   string
		header map[string]string
		want   bool
	}{
		{"Claude Code's post", "127.0.0.1:23022", map[string]string{"Content-Type": "application/json"}, true},
		{"with a charset", "localhost:23022", map[string]string{"Content-Type": "application/json; charset=utf-8"}, true},
		{"a page's simple post", "127.0.0.1:23022", map[string]string{"Content-Type": "text/plain"}, false},
		{"a page's form", "127.0.0.1:23022", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, false},
		{"with an Origin", "127.0.0.1:23022", map[string]string{"Content-Type": "application/json", "Origin": "http://evil.example"}, false},
		{"a rebound name", "evil.example:23022", map[string]string{"Content-Type": "application/json"}, false},
		{"no content type", "127.0.0.1:23022", nil, false},
	}
	for _, tc := range tests {
		r := httptest.NewRequest("POST", "http://"+tc.host+"/hook/claude", strings.NewReader("{}"))
		r.Host = tc.host
		for k, v := range tc.header {
			r.Header.Set(k, v)
		}
		if got := fromAgent(r); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A refusal is Claude Code's own: a PreToolUse denial with the reason,
// else a block.
func TestHookdRefusalJSON(t *testing.T) {
	pre := string(refusalJSON([]byte(`{"hook_event_name":"PreToolUse"}`), "no"))
	if !strings.Contains(pre, `"permissionDecision":"deny"`) || !strings.Contains(pre, `"permissionDecisionReason":"no"`) {
		t.Errorf("PreToolUse refusal: %s", pre)
	}
	if post := string(refusalJSON([]byte(`{"hook_event_name":"PostToolUse"}`), "no")); post != `{"decision":"block","reason":"no"}` {
		t.Errorf("PostToolUse refusal: %s", post)
	}
}
