package session

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestSamplingGuard: on a session without a sampler, every sampling request of the
// server is refused with an error that names the server and says why, and refused is
// told each time; any other request goes on to mcp-go's handler.
func TestSamplingGuard(t *testing.T) {
	tests := []struct {
		method  mcp.MCPMethod
		refused bool
	}{
		{mcp.MethodSamplingCreateMessage, true},
		{mcp.MethodElicitationCreate, false},
		{mcp.MethodListRoots, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.method), func(t *testing.T) {
			told, passed := 0, 0
			h := samplingGuard{server: "s", refused: func() { told++ }}.handler(func(context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
				passed++
				return &transport.JSONRPCResponse{}, nil
			})
			_, err := h(context.Background(), transport.JSONRPCRequest{Method: string(tt.method)})
			refusedNow := err != nil && strings.Contains(err.Error(), "sampling is not supported") && strings.Contains(err.Error(), "s cannot ask")
			if refusedNow != tt.refused || (told == 1) != tt.refused || (passed == 1) == tt.refused {
				t.Fatalf("err %v, told %d, passed on %d; want refused %v", err, told, passed, tt.refused)
			}
		})
	}
}
