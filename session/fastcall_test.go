package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
)

// wireLog keeps every line a server read, in order.
type wireLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *wireLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if s != "" {
			l.lines = append(l.lines, s)
		}
	}
	return len(p), nil
}

// last returns the last line whose method is method, decoded.
func (l *wireLog) last(t *testing.T, method string) (id json.RawMessage, params map[string]json.RawMessage) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.lines) - 1; i >= 0; i-- {
		var m struct {
			ID     json.RawMessage            `json:"id"`
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
		}
		if json.Unmarshal([]byte(l.lines[i]), &m) == nil && m.Method == method {
			return m.ID, m.Params
		}
	}
	t.Fatalf("the server read no %s", method)
	return nil, nil
}

// pipeSession is a session client over in-memory pipes to mcp-go's stdio server (no
// process, no headers: the stdio path of CallTool), speaking the era pin asks for, with
// every line the server reads logged.
func pipeSession(t *testing.T, ctx context.Context, pin string) (*Client, *wireLog) {
	t.Helper()
	srv := server.NewMCPServer("pipe", "1", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("echo"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo " + req.GetString("text", "")), nil
	})
	toServerR, toServerW := io.Pipe()
	fromServerR, fromServerW := io.Pipe()
	wire := &wireLog{}
	srvCtx, stop := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = server.NewStdioServer(srv).Listen(srvCtx, io.TeeReader(toServerR, wire), fromServerW)
	}()
	h := Handlers{}
	h.Init.Params.ProtocolVersion = pin
	h.Era.Pin = pin
	h.Init.Params.ClientInfo = mcp.Implementation{Name: "mcp-bridge-test", Version: "9"}
	c := NewClient(newIOTransport(bufio.NewReader(fromServerR), toServerW, zerolog.Nop(), nil), config.TransportStdio, h)
	t.Cleanup(func() {
		_ = c.cl.Close()
		stop()
		_ = toServerR.Close()
		_ = fromServerW.Close()
		<-served
	})
	if err := c.Initialize(ctx, h); err != nil {
		t.Fatal(err)
	}
	return c, wire
}

// TestStdioCallEncodedOnce: a tools/call over stdio, in either era, is sent by the
// session's own encoder (callFast: a string id of its own, the params encoded once)
// rather than mcp-go's CallTool, and carries what mcp-go would have sent: the caller's
// _meta (a progress token), the session's _meta on a modern connection only, no _meta
// at all on a legacy one without a caller's.
func TestStdioCallEncodedOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, pin    string
		token        bool
		rawArgs      bool     // the arguments in RawArguments, as mcp-go's decoder leaves them
		wantMetaKeys []string // nil: no _meta at all
	}{
		{name: "legacy", pin: legacyV},
		{name: "legacy, raw arguments", pin: legacyV, rawArgs: true},
		{name: "legacy with a progress token", pin: legacyV, token: true, wantMetaKeys: []string{"progressToken"}},
		{name: "modern", pin: modernV, wantMetaKeys: []string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientCapabilities, mcp.MetaKeyClientInfo}},
		{name: "modern with a progress token", pin: modernV, token: true,
			wantMetaKeys: []string{"progressToken", mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientCapabilities, mcp.MetaKeyClientInfo}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, wire := pipeSession(t, ctx, tt.pin)
			if got := c.Info().Protocol; got != tt.pin {
				t.Fatalf("protocol %q, want %q", got, tt.pin)
			}
			req := mcp.CallToolRequest{}
			req.Params.Name = "echo"
			if tt.rawArgs {
				req.Params.Arguments = map[string]any{"text": "not these"}
				req.Params.RawArguments = json.RawMessage(`{"text":"hi"}`)
			} else {
				req.Params.Arguments = json.RawMessage(`{"text":"hi"}`)
			}
			if tt.token {
				req.Params.Meta = &mcp.Meta{ProgressToken: mcp.ProgressToken("tok-1")}
			}
			res, err := c.CallTool(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Content) != 1 || res.Content[0].(mcp.TextContent).Text != "echo hi" {
				t.Fatalf("result %+v", res.Content)
			}
			id, params := wire.last(t, string(mcp.MethodToolsCall))
			var sid string
			if json.Unmarshal(id, &sid) != nil || !strings.HasPrefix(sid, "mcp-bridge-call-") {
				t.Errorf("tools/call id %s: not the session's own (sent through mcp-go's CallTool?)", id)
			}
			if string(params["arguments"]) != `{"text":"hi"}` {
				t.Errorf("arguments %s, want them as given", params["arguments"])
			}
			raw, has := params["_meta"]
			if tt.wantMetaKeys == nil {
				if has {
					t.Errorf("_meta %s, want none", raw)
				}
				return
			}
			var meta map[string]json.RawMessage
			if err := json.Unmarshal(raw, &meta); err != nil {
				t.Fatalf("_meta %s: %v", raw, err)
			}
			if len(meta) != len(tt.wantMetaKeys) {
				t.Errorf("_meta %s, want the keys %v", raw, tt.wantMetaKeys)
			}
			for _, k := range tt.wantMetaKeys {
				if _, ok := meta[k]; !ok {
					t.Errorf("_meta %s lacks %s", raw, k)
				}
			}
			if tt.token && string(meta["progressToken"]) != `"tok-1"` {
				t.Errorf("progressToken %s", meta["progressToken"])
			}
		})
	}
}

// TestEncodeCallParams: the params callFast sends are what json.Marshal of callParams
// gives, as JSON values, for every kind of arguments, and invalid raw arguments fail as
// they did; raw arguments the bridge hands on are copied rather than re-encoded, with
// fewer allocations than the encoder takes. Not parallel: AllocsPerRun.
func TestEncodeCallParams(t *testing.T) {
	meta := json.RawMessage(`{"progressToken":"p-1"}`)
	tests := []struct {
		name string
		args any
		meta json.RawMessage
	}{
		{name: "raw object", args: json.RawMessage(`{"text":"hi"}`)},
		{name: "raw with white space", args: json.RawMessage("{ \"text\" :\t\"a b\",\r\n \"n\": [1, 2] }"), meta: meta},
		{name: "raw with markup and escapes", args: json.RawMessage(`{"html":"<a href=\"x\">&amp;</a>","u":"\u2028é"}`), meta: meta},
		{name: "raw null", args: json.RawMessage(`null`)},
		{name: "map", args: map[string]any{"text": "hi", "n": 2}, meta: meta},
		{name: "no arguments", args: nil},
		{name: "empty raw", args: json.RawMessage{}},
		{name: "odd tool name", args: json.RawMessage(`{}`), meta: meta},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "echo"
			if tt.name == "odd tool name" {
				name = "a\"b<c>\u00e9\n"
			}
			got, err := encodeCallParams(name, tt.args, tt.meta)
			want, wantErr := json.Marshal(callParams{Name: name, Arguments: tt.args, Meta: tt.meta})
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("error %v, the encoder's %v", err, wantErr)
			}
			if err != nil {
				return
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s is no JSON: %v", got, err)
			}
			_ = json.Unmarshal(want, &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("params %s, the encoder gives %s", got, want)
			}
			if bytes.ContainsAny(got, "\r\n") {
				t.Errorf("params %q hold a line break", got)
			}
		})
	}
	for _, bad := range []string{`{"text":`, `{"a":1}}`, "{\"a\":\n", `nope`} {
		if _, err := encodeCallParams("echo", json.RawMessage(bad), nil); err == nil {
			t.Errorf("raw arguments %q encoded without an error", bad)
		}
	}
}

// BenchmarkCallParams: the params of one tools/call as callFast encodes them, beside
// json.Marshal of the same struct, and the result read beside mcp.ParseCallToolResult.
func BenchmarkCallParams(b *testing.B) {
	raw := json.RawMessage(`{"text":"hello","options":{"repeat":2,"upper":false}}`)
	meta := json.RawMessage(`{"progressToken":"p-1"}`)
	result := json.RawMessage(`{"content":[{"type":"text","text":"Echo: hello"}]}`)
	b.Run("encode=ours", func(b *testing.B) {
		for b.Loop() {
			_, _ = encodeCallParams("echo", raw, meta)
		}
	})
	b.Run("encode=json", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(callParams{Name: "echo", Arguments: raw, Meta: meta})
		}
	})
	b.Run("parse=ours", func(b *testing.B) {
		for b.Loop() {
			_, _ = parseCallResult(result)
		}
	})
	b.Run("parse=mcp-go", func(b *testing.B) {
		for b.Loop() {
			_, _ = mcp.ParseCallToolResult(&result)
		}
	})
}

// TestParseCallResult: a tools/call result reads as mcp.ParseCallToolResult reads it,
// content, structured content, error flag, a request for input and the failures alike.
func TestParseCallResult(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		`{"content":[{"type":"text","text":"bad"}],"isError":true}`,
		`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"text","text":"x","annotations":{"priority":1}}],"structuredContent":{"a":[1,2]},"_meta":{"k":"v"}}`,
		`{"content":[]}`,
		`{"content":null}`,
		`{"resultType":"input_required","inputRequests":{},"requestState":"s"}`,
		`{"structuredContent":{"a":1}}`,
		`{"content":[{"text":"no type"}]}`,
		`{"content":"not a list"}`,
		`[1,2]`,
		`{"content":[`,
	} {
		got, err := parseCallResult(json.RawMessage(raw))
		r := json.RawMessage(raw)
		want, wantErr := mcp.ParseCallToolResult(&r)
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("%s: error %v, mcp-go's %v", raw, err, wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: result %+v, mcp-go's %+v", raw, got, want)
		}
	}
}
