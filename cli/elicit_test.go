package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/interact"
)

// TestTermElicitor: the terminal answers forms on a TTY (Enter keeps the default, bad
// values are asked again), takes the defaults with --accept-defaults, and declines off a
// terminal; a URL is accepted on a TTY after Enter and declined elsewhere.
func TestTermElicitor(t *testing.T) {
	t.Parallel()
	form := &interact.Elicitation{Server: "srv", Message: "Who are you?", Mode: mcp.ElicitationModeForm, Fields: []interact.Field{
		{Name: "name", Type: "string", Default: "Ada"},
		{Name: "age", Type: "integer", Default: float64(36)},
	}}
	url := &interact.Elicitation{Server: "srv", Message: "Sign the form", Mode: mcp.ElicitationModeURL, URL: "https://example.com/sign"}
	tests := []struct {
		name          string
		q             *interact.Elicitation
		input         string
		tty, defaults bool
		action        mcp.ElicitationResponseAction
		content       map[string]any
		wantOut       []string
	}{
		{"tty keeps defaults", form, "\n\n", true, false, mcp.ElicitationResponseActionAccept, map[string]any{"name": "Ada", "age": float64(36)}, []string{"name (string) [Ada]: ", "age (integer) [36]: "}},
		{"tty typed and retried", form, "Grace\nold\nGrace\n85\n", true, false, mcp.ElicitationResponseActionAccept, map[string]any{"name": "Grace", "age": int64(85)}, []string{`Not sent: age: "old" is not a whole number`}},
		{"tty decline", form, "!decline\n", true, false, mcp.ElicitationResponseActionDecline, nil, nil},
		{"tty cancel", form, "\n!cancel\n", true, false, mcp.ElicitationResponseActionCancel, nil, nil},
		{"accept defaults", form, "", false, true, mcp.ElicitationResponseActionAccept, map[string]any{"name": "Ada", "age": float64(36)}, []string{"accepted the defaults (--accept-defaults)"}},
		{"not interactive", form, "", false, false, mcp.ElicitationResponseActionDecline, nil, []string{"declined: this call is not interactive", "fields: name, age"}},
		{"url on tty", url, "\n", true, false, mcp.ElicitationResponseActionAccept, nil, []string{"https://example.com/sign", "Sign the form"}},
		{"url off a terminal", url, "", false, true, mcp.ElicitationResponseActionDecline, nil, []string{"declined: this call is not interactive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			te := newTermElicitor(strings.NewReader(tt.input), tt.tty, &out, tt.defaults)
			res, err := te.Elicit(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if res.Action != tt.action {
				t.Fatalf("action %s, want %s\n%s", res.Action, tt.action, out.String())
			}
			if tt.content != nil {
				got, _ := res.Content.(map[string]any)
				if len(got) != len(tt.content) {
					t.Fatalf("content %#v, want %#v", res.Content, tt.content)
				}
				for k, v := range tt.content {
					if got[k] != v {
						t.Errorf("content[%s] = %#v, want %#v", k, got[k], v)
					}
				}
			}
			for _, want := range tt.wantOut {
				if !strings.Contains(out.String(), want) {
					t.Errorf("terminal output lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}
