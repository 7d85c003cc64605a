package mcpserver

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkStatusStdio is one sandbox_status round trip over stdio to a
// server process, after initialize; it reports the median besides the
// mean.
func BenchmarkStatusStdio(b *testing.B) {
	benchStatus(b, func(fx *fixture) *client.Client {
		c, err := client.NewStdioMCPClient(osArgs0(), []string{serveVar + "=" + fx.f.Root}, "-test.run=^$")
		if err != nil {
			b.Fatal(err)
		}
		return c
	})
}

// BenchmarkStatusInProcess is the same with the server in this process
// (pipes instead of a child's stdio).
func BenchmarkStatusInProcess(b *testing.B) {
	benchStatus(b, func(fx *fixture) *client.Client { return fx.pipeClient() })
}

func benchStatus(b *testing.B, connect func(*fixture) *client.Client) {
	fx := benchFixture(b)
	c := connect(fx)
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = ToolStatus
	times := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			b.Fatalf("%v %v", res, err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median")
}
