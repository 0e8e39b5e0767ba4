package session

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// waitingModel is a sampler that waits for its context to end, or fails with err.
type waitingModel struct{ err error }

func (m waitingModel) CreateMessage(ctx context.Context, _ mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if m.err != nil {
		return nil, m.err
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestLegacySamplerEndsWithSession: a legacy server's sampling request, whose context
// from a stdio transport never ends, ends when the session does; a sampler's error is
// what the request fails with (mcp-go sends its text to the server). Before, the
// request waited on a context nothing ended.
func TestLegacySamplerEndsWithSession(t *testing.T) {
	t.Parallel()
	busy := errors.New("the client's model is busy")
	for _, tc := range []struct {
		name  string
		model waitingModel
		want  error
	}{
		{name: "session ends", want: context.Canceled},
		{name: "sampler fails", model: waitingModel{err: busy}, want: busy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			life, end := context.WithCancel(context.Background())
			end() // the session is over before the request is answered
			l := legacySampler{in: Inputs{Sample: tc.model}, life: life}
			res, err := l.CreateMessage(context.Background(), mcp.CreateMessageRequest{})
			if !errors.Is(err, tc.want) || res != nil {
				t.Fatalf("got %v, %v; want %v", res, err, tc.want)
			}
		})
	}
}
