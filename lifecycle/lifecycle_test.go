package lifecycle

import (
	"errors"
	"fmt"
	"github.com/zot-mcp/mcp-bridge/session"
	"testing"
	"time"
)

func TestBackoffDelays(t *testing.T) {
	t.Parallel()
	want := []time.Duration{0, 0, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}
	for n, w := range want {
		if got := BackoffDelay(n); got != w {
			t.Errorf("BackoffDelay(%d) = %s, want %s", n, got, w)
		}
	}
	if got := BackoffDelay(40); got != BackoffMax {
		t.Errorf("cap: %s", got)
	}
}

// TestUserText: the user's text of a failure carries what only the user may see (the
// stderr tail); any other error is its own text.
func TestUserText(t *testing.T) {
	t.Parallel()
	e := &Error{Kind: session.KindEnded, Server: "s", Msg: "for the model", User: "for the user"}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{e, "for the user"},
		{fmt.Errorf("wrapped: %w", e), "for the user"},
		{&Error{Kind: session.KindCall, Msg: "only the model's"}, "only the model's"},
		{errors.New("plain"), "plain"},
	} {
		if got := UserText(tt.err); got != tt.want {
			t.Errorf("UserText(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
