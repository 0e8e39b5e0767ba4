package interact

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestProgressText(t *testing.T) {
	c := progressCall{server: "gh", tool: "clone"}
	for _, tt := range []struct {
		n    mcp.ProgressNotificationParams
		want string
	}{
		{mcp.ProgressNotificationParams{Progress: 2, Total: 5}, "gh clone: 40%"},
		{mcp.ProgressNotificationParams{Progress: 2, Total: 5, Message: "  fetching\nobjects "}, "gh clone: fetching objects 40%"},
		{mcp.ProgressNotificationParams{Progress: 7, Total: 5}, "gh clone: 100%"},
		{mcp.ProgressNotificationParams{Progress: 3, Message: "step"}, "gh clone: step 3 done"},
		{mcp.ProgressNotificationParams{Progress: 0.5}, "gh clone: 0.5 done"},
		{mcp.ProgressNotificationParams{Progress: 1, Total: 2, Message: "clear\x1b[2J\u202e\x07 it"}, "gh clone: clear[2J it 50%"},
	} {
		if got := progressText(c, tt.n); got != tt.want {
			t.Errorf("progressText(%+v) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
