package session

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// syncBuffer hands each log line written by the transport's goroutines to the test.
type syncBuffer struct {
	ch chan string
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.ch <- string(p)
	return len(p), nil
}

// closedWriter fails every write, like the pipe to a server that has exited.
type closedWriter struct{}

func (closedWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
func (closedWriter) Close() error              { return nil }

// TestStdioTransportLogsToOurLogger: when the server asks something (a ping) and the
// answer cannot be written, mcp-go's complaint goes to our logger, never to slog's
// default logger (the terminal's stderr in the CLI). Not parallel: it swaps slog's
// default logger to catch what would reach the terminal.
func TestStdioTransportLogsToOurLogger(t *testing.T) {
	terminal := &syncBuffer{ch: make(chan string, 16)}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(terminal, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	ours := &syncBuffer{ch: make(chan string, 16)}
	pr, pw := io.Pipe()
	tr := newIOTransport(pr, closedWriter{}, zerolog.New(ours), nil)
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tr.Close() }()
	go func() { _, _ = pw.Write([]byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n")) }()
	// The one complaint goes to one of the two: whichever it is ends the wait.
	select {
	case line := <-ours.ch:
		if !strings.Contains(line, "Error writing response") || !strings.Contains(line, `"level":"warn"`) {
			t.Errorf("our log got %q, want mcp-go's write error as a warning", line)
		}
	case line := <-terminal.ch:
		t.Errorf("mcp-go wrote to slog's default logger (the terminal): %q", line)
	}
}
