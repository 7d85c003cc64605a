package fakemodel

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) []string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			events = append(events, name)
		}
	}
	if len(events) == 0 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("no events: %s %s", resp.Status, b)
	}
	return events
}

func TestAnthropicTurnsAndToolResults(t *testing.T) {
	var seen []*Request
	a, err := StartAnthropic(func(r *Request) Reply {
		seen = append(seen, r)
		return Reply{Text: "hi", ToolCalls: []ToolCall{{Name: "Bash", Input: map[string]string{"command": "ls"}}}}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	body := `{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[
		{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"out"}]}]}]}`
	got := strings.Join(post(t, a.URL+"/v1/messages", body), ",")
	want := "message_start,content_block_start,content_block_delta,content_block_stop," +
		"content_block_start,content_block_delta,content_block_stop,message_delta,message_stop"
	if got != want {
		t.Errorf("events %s", got)
	}
	if len(seen) != 1 || seen[0].Turn != 1 || len(seen[0].Results) != 1 || seen[0].Results[0].Content != "out" || !seen[0].Results[0].IsError {
		t.Errorf("request %+v", seen[0])
	}
	post(t, a.URL+"/v1/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":"title?"}]}`)
	if len(a.MainRequests()) != 1 || len(a.Requests()) != 2 {
		t.Errorf("a side request counted as main")
	}
}

func TestResponsesTurns(t *testing.T) {
	var turn int
	var results []ToolResult
	r, err := StartResponses(func(q *Request) Reply {
		turn, results = q.Turn, q.Results
		return Reply{ToolCalls: []ToolCall{{Name: "exec_command", Input: map[string]string{"cmd": "ls"}}}}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	body := `{"tools":[{"name":"exec_command"}],"input":[
		{"type":"message","role":"user","content":[]},
		{"type":"reasoning"},{"type":"function_call","call_id":"c1"},
		{"type":"function_call_output","call_id":"c1","output":"done"}]}`
	got := strings.Join(post(t, r.URL+"/responses", body), ",")
	if got != "response.created,response.output_item.added,response.output_item.done,response.completed" {
		t.Errorf("events %s", got)
	}
	if turn != 1 || len(results) != 1 || results[0].Content != "done" {
		t.Errorf("turn %d results %+v", turn, results)
	}
}

func TestTrapRecords(t *testing.T) {
	tr, err := StartTrap()
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	req, _ := http.NewRequest(http.MethodConnect, tr.URL, nil)
	req.Host = "api.example.com:443"
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	if hits := tr.Hits(); len(hits) != 1 || !strings.Contains(hits[0], "api.example.com") {
		t.Errorf("hits %v", hits)
	}
}

func TestGeminiTurnsAndFunctionResponses(t *testing.T) {
	var seen []*Request
	g, err := StartGemini(func(r *Request) Reply {
		seen = append(seen, r)
		return Reply{Text: "running", ToolCalls: []ToolCall{{Name: "run_shell_command", Input: map[string]string{"command": "ls"}}}}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	body := `{"tools":[{"functionDeclarations":[]}],"contents":[
		{"role":"user","parts":[{"text":"go"}]},
		{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"Output: x"}}},
			{"functionResponse":{"id":"c2","name":"x","response":{"error":"boom"}}}]}]}`
	resp, err := http.Post(g.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	data, ok := strings.CutPrefix(string(b), "data: ")
	var ans struct {
		Candidates []struct {
			Content struct {
				Parts []map[string]any
			}
		}
	}
	if !ok || json.Unmarshal([]byte(data), &ans) != nil || len(ans.Candidates) != 1 || len(ans.Candidates[0].Content.Parts) != 2 ||
		ans.Candidates[0].Content.Parts[1]["functionCall"] == nil {
		t.Fatalf("answer %s", b)
	}
	if len(seen) != 1 || seen[0].Turn != 1 || len(seen[0].Results) != 2 || seen[0].Results[0].Content != "Output: x" ||
		seen[0].Results[0].IsError || !seen[0].Results[1].IsError || seen[0].Results[1].Content != "boom" {
		t.Errorf("request %+v", seen[0])
	}
	resp, err = http.Post(g.URL+"/v1beta/models/m:generateContent", "application/json", strings.NewReader(`{"contents":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(g.MainRequests()) != 1 || len(g.Requests()) != 2 {
		t.Errorf("side call: %s, %d main requests", resp.Status, len(g.MainRequests()))
	}
}
