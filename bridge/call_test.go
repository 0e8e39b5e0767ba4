package bridge

import (
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// A tool's arguments reach the server as the host wrote them: numbers beyond float64's
// precision, key order and nesting survive, because the bridge does not decode them into
// Go values and encode them again.
func TestCallArgumentsPassThrough(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	rec := t.TempDir() + "/rec.jsonl"
	e.write(map[string]any{"s": e.server("-record", rec)}, nil)
	pre := e.bridge(extension.GenNew)
	if _, errs := pre.Refresh(ctxGuard(t), []string{"s"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	b := e.bridge(extension.GenNew)
	const args = `{"text":"x","z":1,"big":12345678901234567890123,"nested":{"b":[1.50,2],"a":null}}`
	r := b.CallTool(ctxGuard(t), extension.ToolCall{ID: "1", Name: "mcp__s__echo", Args: []byte("  " + args + "\n")})
	if r.IsError {
		t.Fatalf("call failed: %q", textOf(t, r))
	}
	var got string
	for _, l := range testutil.ReadRecord(t, rec) {
		if l.Method == "tools/call" && l.Tool == "echo" {
			got = string(l.Arguments)
		}
	}
	if got != args {
		t.Fatalf("server got arguments %s, want %s", got, args)
	}
}

func TestCallArgumentsMustBeAnObject(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"s": e.server()}, nil)
	pre := e.bridge(extension.GenNew)
	if _, errs := pre.Refresh(ctxGuard(t), []string{"s"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	b := e.bridge(extension.GenNew)
	tests := []struct {
		args, want string
	}{
		{`[1,2]`, "arguments must be a JSON object: got an array"},
		{`"text"`, "arguments must be a JSON object: got a string"},
		{`42`, "arguments must be a JSON object: got a number"},
		{`true`, "arguments must be a JSON object: got a boolean"},
		{`{"text":`, "arguments must be a JSON object: not valid JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			r := b.CallTool(ctxGuard(t), extension.ToolCall{ID: "1", Name: "mcp__s__echo", Args: []byte(tc.args)})
			if !r.IsError || !strings.Contains(textOf(t, r), tc.want) {
				t.Fatalf("result %q (error %v), want an error containing %q", textOf(t, r), r.IsError, tc.want)
			}
		})
	}
	// Absent and null arguments are {}: the call reaches the server (which then asks
	// for its required text).
	for _, args := range []string{``, `null`, ` null `} {
		r := b.CallTool(ctxGuard(t), extension.ToolCall{ID: "1", Name: "mcp__s__echo", Args: []byte(args)})
		if strings.Contains(textOf(t, r), "must be a JSON object") {
			t.Fatalf("arguments %q: %q", args, textOf(t, r))
		}
	}
}
