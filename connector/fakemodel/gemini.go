package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
)

// Gemini is a fake Gemini API (generativelanguage v1beta) on 127.0.0.1,
// for Gemini CLI with an API key and GOOGLE_GEMINI_BASE_URL=URL:
// POST /v1beta/models/MODEL:streamGenerateContent answered from a Script
// and streamed as SSE (one chunk), :generateContent (the CLI's side
// calls: routing, next speaker) with one JSON object every such caller
// can read, :countTokens with a count.
type Gemini struct {
	recorder
	// URL is the base URL (no version path).
	URL    string
	script Script
	srv    *http.Server
}

// StartGemini listens on a free loopback port and serves script.
func StartGemini(script Script) (*Gemini, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake gemini: %w", err)
	}
	g := &Gemini{URL: "http://" + ln.Addr().String(), script: script}
	g.srv = &http.Server{Handler: http.HandlerFunc(g.serve)}
	go g.srv.Serve(ln)
	return g, nil
}

// Close stops the server.
func (g *Gemini) Close() error { return g.srv.Close() }

type geminiBody struct {
	Contents []geminiContent   `json:"contents"`
	Tools    []json.RawMessage `json:"tools"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text             string          `json:"text,omitempty"`
	FunctionCall     *geminiCall     `json:"functionCall,omitempty"`
	FunctionResponse *geminiResponse `json:"functionResponse,omitempty"`
}

type geminiCall struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	Args any    `json:"args"`
}

type geminiResponse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// sideAnswer is the text of every :generateContent answer: Gemini CLI's
// side calls ask for JSON (the router's complexity, the next speaker)
// and each reads its own fields from it.
const sideAnswer = `{"complexity_reasoning":"a scripted task","complexity_score":1,"reasoning":"the task is done","next_speaker":"user"}`

func (g *Gemini) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(hr.Body, 64<<20))
	req := &Request{Path: hr.URL.Path, Body: body}
	g.add(req)
	_, method, _ := strings.Cut(hr.URL.Path, ":")
	var b geminiBody
	if hr.Method != http.MethodPost || json.Unmarshal(body, &b) != nil {
		http.Error(w, `{"error":{"code":400,"message":"fake: bad request"}}`, http.StatusBadRequest)
		return
	}
	switch method {
	case "streamGenerateContent":
		parseGemini(req, &b)
		reply := Reply{Text: "ok"}
		if req.Main {
			reply = g.script(req)
		}
		s := newSSE(w)
		s.data(geminiAnswer(reply))
	case "generateContent":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(geminiAnswer(Reply{Text: sideAnswer}))
	case "countTokens":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"totalTokens":%d}`, len(body)/4)
	default:
		http.Error(w, `{"error":{"code":404,"message":"fake: not found"}}`, http.StatusNotFound)
	}
}

// parseGemini counts the model's turns and collects the function
// responses of the last content, which the client sends after a turn
// that called functions.
func parseGemini(req *Request, b *geminiBody) {
	req.Main = len(b.Tools) > 0
	for _, c := range b.Contents {
		if c.Role == "model" {
			req.Turn++
		}
	}
	if len(b.Contents) == 0 {
		return
	}
	for _, p := range b.Contents[len(b.Contents)-1].Parts {
		if r := p.FunctionResponse; r != nil {
			req.Results = append(req.Results, geminiResult(r))
		}
	}
}

// geminiResult reads a function response: Gemini CLI puts the tool's
// text in response.output, or an error in response.error.
func geminiResult(r *geminiResponse) ToolResult {
	var v struct {
		Output *string          `json:"output"`
		Error  *json.RawMessage `json:"error"`
	}
	res := ToolResult{ID: r.ID, Content: string(r.Response)}
	if json.Unmarshal(r.Response, &v) != nil {
		return res
	}
	switch {
	case v.Output != nil:
		res.Content = *v.Output
	case v.Error != nil:
		res.Content, res.IsError = outputText(*v.Error), true
	}
	return res
}

// geminiAnswer is one GenerateContentResponse holding the whole reply.
func geminiAnswer(r Reply) any {
	var parts []geminiPart
	if r.Text != "" {
		parts = append(parts, geminiPart{Text: r.Text})
	}
	for _, tc := range r.ToolCalls {
		var args any = map[string]any{}
		if tc.Input != nil {
			args = tc.Input
		}
		parts = append(parts, geminiPart{FunctionCall: &geminiCall{ID: tc.ID, Name: tc.Name, Args: args}})
	}
	return map[string]any{
		"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
			"content": geminiContent{Role: "model", Parts: parts}}},
		"usageMetadata": map[string]int{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
		"modelVersion":  "fake-model",
	}
}
