package session

import (
	"context"
	"sync"
)

// StdioConnector is the connector of one stdio server: each Open spawns a new process
// (OpenStdio), whose stderr tail it keeps after the process exits (Tail), for the user.
type StdioConnector struct {
	// Options says how to run the server, asked at every start (the environment and
	// limits of that moment); the Tail it gives is replaced by the connector's own.
	Options func() Stdio

	mu   sync.Mutex
	tail *Ring
}

// Open spawns the server and initializes a session with it within ctx.
func (c *StdioConnector) Open(ctx context.Context, h Handlers) (Session, error) {
	tail := NewStderrTail()
	c.mu.Lock()
	c.tail = tail
	c.mu.Unlock()
	o := c.Options()
	o.Tail = tail
	return OpenStdio(ctx, o, h)
}

// Tail is the stderr tail of the last process started (nil before the first).
func (c *StdioConnector) Tail() *Ring {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tail
}
