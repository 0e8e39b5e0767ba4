package session

import (
	"errors"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// A modern connection has no GET stream: the list changes the bridge follows (tools,
// resources, prompts) arrive on a subscriptions/listen request the server holds open,
// and reach Handlers.OnNotification as they did on a legacy connection. One goroutine
// owns the stream for the session's life; a stream that ends while the session lives is
// opened again after a backoff that doubles up to listenRetryMax and starts afresh once
// a stream was acknowledged. A server that does not know the method is not asked again.

const (
	listenRetryMin = time.Second
	listenRetryMax = 30 * time.Second
)

// ErrListenClosed is a subscriptions/listen stream the server ended without an error.
var ErrListenClosed = errors.New("the server ended the subscriptions/listen stream")

// listen opens the stream for what the server says may change (nothing to follow:
// none).
func (c *Client) listen(caps mcp.ServerCapabilities) {
	f := mcp.SubscriptionFilter{
		ToolsListChanged:     caps.Tools != nil && caps.Tools.ListChanged,
		PromptsListChanged:   caps.Prompts != nil && caps.Prompts.ListChanged,
		ResourcesListChanged: caps.Resources != nil && caps.Resources.ListChanged,
	}
	if f.IsEmpty() {
		return
	}
	acked := make(chan struct{}, 1)
	c.cl.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationSubscriptionsAcknowledged {
			select {
			case acked <- struct{}{}:
			default:
			}
		}
	})
	go c.listenLoop(f, acked)
}

func (c *Client) listenLoop(f mcp.SubscriptionFilter, acked <-chan struct{}) {
	wait := listenRetryMin
	for {
		err := c.cl.Listen(c.life, f)
		if c.life.Err() != nil {
			return
		}
		select {
		case <-acked:
			wait = listenRetryMin
		default:
		}
		if err == nil {
			err = ErrListenClosed
		}
		if c.era.ListenEnded != nil {
			c.era.ListenEnded(err)
		}
		if errors.Is(err, mcp.ErrMethodNotFound) {
			return
		}
		t, timer := clock.After(c.era.clock(), wait)
		select {
		case <-t:
		case <-c.life.Done():
			timer.Stop()
			return
		}
		wait = min(2*wait, listenRetryMax)
	}
}
