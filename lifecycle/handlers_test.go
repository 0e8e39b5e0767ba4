package lifecycle

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/config"
)

// TestListChangedOfResourcesAndPrompts: resources and prompts list changes re-list the
// server like a tools list change; other notifications do not.
func TestListChangedOfResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		method string
		relist bool
	}{
		{"notifications/resources/list_changed", true},
		{"notifications/prompts/list_changed", true},
		{"notifications/resources/updated", false},
	} {
		got := make(chan string, 1)
		s := New(&config.Server{Name: "s"}, &Deps{OnListChanged: func(n string) { got <- n }})
		n := mcp.JSONRPCNotification{}
		n.Method = tt.method
		s.onNotification(n)
		if tt.relist {
			if name := <-got; name != "s" {
				t.Fatalf("%s: re-listed %q", tt.method, name)
			}
		} else {
			select {
			case name := <-got:
				t.Fatalf("%s re-listed %q", tt.method, name)
			default: // no re-list was started
			}
		}
	}
}
