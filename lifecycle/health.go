package lifecycle

import (
	"context"
	"fmt"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// PingTimeout is how long a server gets to answer a ping after one of its calls timed out.
const PingTimeout = 5 * time.Second

// checkAfterTimeout pings the server (MCP ping, PingTimeout on the injected clock). Calls
// that come meanwhile wait for the verdict; a server that does not answer is stopped, so
// the next call starts it afresh, and /mcp says why.
func (s *Server) checkAfterTimeout(c *conn) {
	// The deadline is armed before the check is published, so anyone who sees the check
	// running knows its deadline is set.
	ctx, cancel := clock.WithTimeout(context.Background(), s.d.Clock, PingTimeout)
	s.mu.Lock()
	if s.conn != c || s.state != StateReady || s.probe != nil {
		s.mu.Unlock()
		cancel()
		return
	}
	done := make(chan struct{})
	s.probe = done
	s.mu.Unlock()
	go func() {
		defer close(done)
		err := c.sess.Ping(ctx)
		cancel()
		if err != nil {
			s.mu.Lock()
			current := s.conn == c
			if current {
				s.lastErr = fmt.Sprintf("not answering: no reply to a ping within %s after a call timed out; restarted for the next call", PingTimeout)
				s.lastErrUser = s.lastErr
				s.lastErrAt = s.d.Clock.Now()
			}
			s.mu.Unlock()
			if current {
				s.d.Log.Warn().Str("server", s.cfg.Name).Str("error", s.Redact(err.Error())).Msg("server not answering after a timed-out call; restarting it")
				s.Stop(context.Background())
			}
		}
		s.mu.Lock()
		if s.probe == done {
			s.probe = nil
		}
		s.mu.Unlock()
	}()
}
