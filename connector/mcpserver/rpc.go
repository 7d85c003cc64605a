package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// The server speaks MCP's JSON-RPC over stdio itself (wire.go has the
// types). mcp-go (github.com/mark3labs/mcp-go) is the client in the
// tests, but not linked into the binary: its server package pulls in a
// JSON Schema library that compiles every metaschema at init, which cost
// every sandbox process (each hook call among them) about 4 ms and 4 MB,
// and its protocol package alone still added 2 MB to the hook's peak RSS.

// maxLine bounds one JSON-RPC message.
const maxLine = 16 << 20

// Protocol versions this server answers initialize with: the client's
// when it is one of these, else the newest.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// message is any incoming JSON-RPC message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// conn is one client connection.
type conn struct {
	s   *Server
	out io.Writer
	wmu sync.Mutex // serialises writes to out

	mu sync.Mutex
	// inflight holds the cancel functions of running calls by id; guarded by mu.
	inflight map[string]context.CancelFunc

	sem chan struct{} // bounds concurrent tool calls
	wg  sync.WaitGroup
}

// Serve answers JSON-RPC on in and out until in ends or ctx is done.
// Every waiting tool call ends with it: their requests stay pending and
// answerable with check_request.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	c := &conn{s: s, out: out, inflight: map[string]context.CancelFunc{}, sem: make(chan struct{}, maxConcurrentCalls)}
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		c.wg.Wait()
	}()
	lines := make(chan []byte)
	errc := make(chan error, 1)
	go func() { errc <- readLines(in, lines) }()
	for {
		select {
		case <-ctx.Done():
			return nil
		case line, ok := <-lines:
			if !ok {
				return <-errc
			}
			c.handle(ctx, line)
		}
	}
}

// readLines sends each non-empty line of in; it closes lines at the end.
func readLines(in io.Reader, lines chan<- []byte) error {
	defer close(lines)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			lines <- bytes.Clone(line)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("mcp: reading: %w", err)
	}
	return nil
}

func (c *conn) handle(ctx context.Context, line []byte) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		c.reply(json.RawMessage("null"), nil, &rpcError{codeParseError, "parse error: " + err.Error()})
		return
	}
	switch {
	case m.Method == "" && (m.Result != nil || m.Error != nil):
		return // a response: this server sends no requests
	case m.JSONRPC != jsonrpcVersion || m.Method == "":
		if len(m.ID) > 0 {
			c.reply(m.ID, nil, &rpcError{codeInvalidRequest, "invalid request: want jsonrpc 2.0 and a method"})
		}
		return
	case len(m.ID) == 0 || string(m.ID) == "null":
		c.notification(&m)
		return
	}
	c.request(ctx, &m)
}

func (c *conn) notification(m *message) {
	if m.Method != noteCancelled {
		return // notifications/initialized and the rest need nothing
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	c.mu.Lock()
	cancel := c.inflight[idKey(p.RequestID)]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (c *conn) request(ctx context.Context, m *message) {
	switch m.Method {
	case methodInitialize:
		c.reply(m.ID, c.s.initializeResult(m.Params), nil)
	case methodPing:
		c.reply(m.ID, struct{}{}, nil)
	case methodToolsList:
		c.reply(m.ID, map[string]any{"tools": c.s.toolList()}, nil)
	case methodToolsCall:
		c.call(ctx, m)
	default:
		c.reply(m.ID, nil, &rpcError{codeMethodNotFound, "method not found: " + m.Method})
	}
}

// call runs a tool call on its own goroutine (calls may wait for a human
// for a long time), cancellable by notifications/cancelled.
func (c *conn) call(ctx context.Context, m *message) {
	var p callParams
	if err := json.Unmarshal(m.Params, &p); err != nil || p.Name == "" {
		c.reply(m.ID, nil, &rpcError{codeInvalidParams, fmt.Sprintf("invalid tools/call params: %v", orMissing(err, "no tool name"))})
		return
	}
	h, ok := c.s.handlers[p.Name]
	if !ok {
		c.reply(m.ID, nil, &rpcError{codeInvalidParams, fmt.Sprintf("unknown tool %q (tools: %s, %s, %s)", p.Name, ToolRun, ToolCheck, ToolStatus)})
		return
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return
	}
	cctx, cancel := context.WithCancel(withNotifier(ctx, c.notify))
	key := idKey(m.ID)
	c.mu.Lock()
	c.inflight[key] = cancel
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer func() {
			c.mu.Lock()
			delete(c.inflight, key)
			c.mu.Unlock()
			cancel()
			<-c.sem
			c.wg.Done()
		}()
		res, err := c.s.runHandler(cctx, h, &p)
		if cctx.Err() != nil {
			return // cancelled, or the client is gone: nobody reads an answer
		}
		if err != nil {
			c.reply(m.ID, nil, &rpcError{codeInternalError, err.Error()})
			return
		}
		c.reply(m.ID, res, nil)
	}()
}

// runHandler runs h, turning a panic into an error (nothing more runs).
func (s *Server) runHandler(ctx context.Context, h handler, p *callParams) (res *ToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in a tool call", "tool", p.Name, "panic", r)
			res, err = nil, fmt.Errorf("bug: panic in %s: %v", p.Name, r)
		}
	}()
	return h(ctx, p)
}

func orMissing(err error, what string) string {
	if err != nil {
		return err.Error()
	}
	return what
}

// idKey is a request id in a canonical form (1 and 1.0 are one id).
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (c *conn) reply(id json.RawMessage, result any, e *rpcError) {
	msg := map[string]any{"jsonrpc": jsonrpcVersion, "id": id}
	if e != nil {
		msg["error"] = e
	} else {
		msg["result"] = result
	}
	c.write(msg)
}

// notify sends a notification to the client.
func (c *conn) notify(method string, params any) {
	c.write(map[string]any{"jsonrpc": jsonrpcVersion, "method": method, "params": params})
}

func (c *conn) write(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		c.s.log.Error("encoding a message", "err", err)
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.out.Write(append(b, '\n')); err != nil && !errors.Is(err, io.ErrClosedPipe) {
		c.s.log.Debug("writing to the client", "err", err)
	}
}

// initializeResult answers initialize.
func (s *Server) initializeResult(params json.RawMessage) initializeResult {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(params, &p)
	v := protocolVersions[0]
	if slices.Contains(protocolVersions, p.ProtocolVersion) {
		v = p.ProtocolVersion
	}
	r := initializeResult{ProtocolVersion: v, Instructions: instructions}
	r.ServerInfo.Name, r.ServerInfo.Version = "sandbox", orDefault(s.opts.Version, "dev")
	return r
}

// notifierKey carries the connection's notify function in a call's ctx.
type notifierKey struct{}

func withNotifier(ctx context.Context, f func(string, any)) context.Context {
	return context.WithValue(ctx, notifierKey{}, f)
}

// notifier returns the function that sends notifications to the client
// of the call running under ctx (a no-op outside one).
func notifier(ctx context.Context) func(string, any) {
	if f, ok := ctx.Value(notifierKey{}).(func(string, any)); ok {
		return f
	}
	return func(string, any) {}
}
