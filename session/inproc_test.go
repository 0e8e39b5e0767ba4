package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestInProcessEnds: each way an in-process session ends fails the request in flight at
// once with an *EndedError saying why, and Done and End agree.
func TestInProcessEnds(t *testing.T) {
	tests := []struct {
		name string
		end  func(s *InProcess)
		want End
	}{
		{"exit", func(s *InProcess) { s.Exit("exited: exit status 3", "boom") }, End{Cause: CauseExited, Status: "exited: exit status 3", Stderr: "boom"}},
		{"lost", func(s *InProcess) { s.Lose(ErrReplyTooLarge) }, End{Cause: CauseLost, Err: ErrReplyTooLarge}},
		{"closed", func(s *InProcess) { _ = s.Close(context.Background()) }, End{Cause: CauseClosed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			started := make(chan struct{})
			srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(true))
			srv.AddTool(mcp.NewTool("wait"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				close(started)
				<-ctx.Done()
				return nil, ctx.Err()
			})
			s, err := OpenInProcess(ctx, srv, Handlers{Init: mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_LEGACY_PROTOCOL_VERSION}}})
			if err != nil {
				t.Fatal(err)
			}
			if s.Info().ServerName != "t" || s.Info().Capabilities.Tools == nil {
				t.Fatalf("info %+v", s.Info())
			}
			errc := make(chan error, 1)
			go func() {
				req := mcp.CallToolRequest{}
				req.Params.Name = "wait"
				_, err := s.CallTool(ctx, req)
				errc <- err
			}()
			<-started
			tt.end(s)
			err = <-errc
			var ended *EndedError
			if !errors.As(err, &ended) || ended.End != tt.want {
				t.Fatalf("call in flight: %v, want ended %+v", err, tt.want)
			}
			select {
			case <-s.Done():
			default:
				t.Fatal("Done not closed")
			}
			if s.End() != tt.want {
				t.Fatalf("End = %+v", s.End())
			}
		})
	}
}
