package mcpserver

import "encoding/json"

// The MCP wire types this server uses (protocol revisions 2024-11-05 to
// 2025-11-25), written out here rather than imported: see rpc.go.

// JSON-RPC and MCP method names and error codes.
const (
	jsonrpcVersion = "2.0"

	methodInitialize = "initialize"
	methodPing       = "ping"
	methodToolsList  = "tools/list"
	methodToolsCall  = "tools/call"
	noteCancelled    = "notifications/cancelled"
	noteProgress     = "notifications/progress"

	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// Tool is one entry of tools/list.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  Annotations     `json:"annotations"`
}

// Annotations are a tool's behaviour hints. Every hint is spelled out:
// the protocol's defaults assume the worst.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint bool   `json:"destructiveHint"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   bool   `json:"openWorldHint"`
}

// callParams are the params of tools/call.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken,omitempty"`
	} `json:"_meta"`
}

// ToolResult is the result of tools/call.
type ToolResult struct {
	Content           []TextContent `json:"content"`
	StructuredContent any           `json:"structuredContent,omitempty"`
	IsError           bool          `json:"isError,omitempty"`
}

// TextContent is a text content block.
type TextContent struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

func textBlock(s string) TextContent { return TextContent{Type: "text", Text: s} }

// errorResult is an isError result carrying one text block.
func errorResult(text string) *ToolResult {
	return &ToolResult{Content: []TextContent{textBlock(text)}, IsError: true}
}

type initializeResult struct {
	ProtocolVersion string `json:"protocolVersion"`
	Capabilities    struct {
		Tools struct {
			ListChanged bool `json:"listChanged"`
		} `json:"tools"`
	} `json:"capabilities"`
	ServerInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Instructions string `json:"instructions,omitempty"`
}
