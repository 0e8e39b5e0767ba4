package extension

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
)

func TestHelloIsFirstLine(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{
			name: "default capabilities",
			opts: Options{Name: "mcp", Version: "2.0.0"},
			want: `{"type":"hello","name":"mcp","version":"2.0.0","capabilities":["tools","commands","tool_cancel"]}`,
		},
		{
			name: "custom capabilities",
			opts: Options{Name: "mcp", Version: "1", Capabilities: []string{"tools"}},
			want: `{"type":"hello","name":"mcp","version":"1","capabilities":["tools"]}`,
		},
		{
			name: "empty capabilities and version",
			opts: Options{Name: "x", Capabilities: []string{}},
			want: `{"type":"hello","name":"x","version":"","capabilities":[]}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			setupCalled := make(chan struct{}, 1)
			x := startRun(t, &testHandler{setup: func(context.Context, *Session) error {
				setupCalled <- struct{}{}
				return nil
			}}, tc.opts, hooks{})
			f, err := x.host.NextType(x.ctx, "hello")
			if err != nil {
				t.Fatal(err)
			}
			if f.Seq != 0 {
				t.Fatalf("hello is line %d, want 0", f.Seq)
			}
			if string(f.Raw) != tc.want {
				t.Fatalf("hello = %s\nwant    %s", f.Raw, tc.want)
			}
			select {
			case <-setupCalled:
				t.Fatal("Setup ran before hello_ack")
			default:
			}
			x.host.Handshake(x.ctx, legacyAck())
			recv(t, x.ctx, setupCalled, "Setup")
		})
	}
}

func TestHandshakeErrors(t *testing.T) {
	tests := []struct {
		name    string
		first   string // "" closes stdin instead
		wantErr string
	}{
		{name: "other frame first", first: `{"type":"tool_call","id":"1","name":"x"}`, wantErr: "want hello_ack"},
		{name: "malformed first line", first: `{"type":"hello_ack"`, wantErr: "not valid hello_ack"},
		{name: "shutdown first", first: `{"type":"shutdown"}`, wantErr: "want hello_ack"},
		{name: "eof before ack", wantErr: "stdin closed before hello_ack"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := startRun(t, &testHandler{setup: func(context.Context, *Session) error {
				t.Error("Setup must not run")
				return nil
			}}, Options{}, hooks{})
			x.host.ExpectHello(x.ctx)
			if tc.first == "" {
				_ = x.host.CloseStdin()
			} else if err := x.host.SendLine([]byte(tc.first)); err != nil {
				t.Fatal(err)
			}
			err := x.runErr()
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Run error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestRegistrationOrderThenReady(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
	cached := AppendToolFrame(nil, Tool{Name: "d", Description: "cached", Schema: schema})
	tests := []struct {
		name     string
		setupErr error
		panics   bool
	}{
		{name: "setup ok"},
		{name: "setup error still sends ready", setupErr: errors.New("boom")},
		{name: "setup panic still sends ready", panics: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sessc := make(chan *Session, 1)
			h := &testHandler{setup: func(_ context.Context, s *Session) error {
				sessc <- s
				steps := []error{
					s.RegisterTool(Tool{Name: "a", Description: "first", Schema: schema, Deferred: true}),
					s.RegisterCommand("b", "a command"),
					s.RegisterTool(Tool{Name: "c", Interactive: true, OutputSchema: json.RawMessage(`{"type":"object"}`)}),
					s.RegisterToolFrame(cached),
					s.RegisterCommand("e", ""),
				}
				for i, err := range steps {
					if err != nil {
						t.Errorf("registration %d: %v", i, err)
					}
				}
				if tc.panics {
					panic("setup exploded")
				}
				return tc.setupErr
			}}
			x := startRun(t, h, Options{}, hooks{})
			regs := x.handshake(legacyAck())
			want := []string{
				`{"type":"register_tool","name":"a","description":"first","schema":{"type":"object","properties":{"q":{"type":"string"}}},"deferred":true}`,
				`{"type":"register_command","name":"b","description":"a command"}`,
				`{"type":"register_tool","name":"c","description":"","schema":{"type":"object","properties":{}},"interactive":true,"output_schema":{"type":"object"}}`,
				string(cached),
				`{"type":"register_command","name":"e"}`,
			}
			var got []string
			for _, f := range regs {
				got = append(got, string(f.Raw))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("registrations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			s := recv(t, x.ctx, sessc, "session")
			recv(t, x.ctx, s.Ready(), "Ready")
			if p := x.host.Pending(); len(p) != 0 {
				t.Fatalf("unexpected frames after ready: %v", p)
			}
		})
	}
}

func TestRegisterToolFrame2000(t *testing.T) {
	const n = 2000
	frames := make([][]byte, n)
	var buf []byte
	for i := range frames {
		start := len(buf)
		buf = AppendToolFrame(buf, Tool{
			Name:        fmt.Sprintf("mcp__srv__tool_%04d", i),
			Description: strings.Repeat("describes the tool. ", 20),
			Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"a path"}},"required":["path"]}`),
			Deferred:    i%2 == 0,
		})
		frames[i] = buf[start:len(buf):len(buf)]
	}
	h := &testHandler{setup: func(_ context.Context, s *Session) error {
		for i, f := range frames {
			if err := s.RegisterToolFrame(f); err != nil {
				return fmt.Errorf("frame %d: %w", i, err)
			}
		}
		return nil
	}}
	x := startRun(t, h, Options{}, hooks{})
	regs := x.handshake(legacyAck())
	if len(regs) != n {
		t.Fatalf("got %d registrations, want %d", len(regs), n)
	}
	for i, f := range regs {
		if !bytes.Equal(f.Raw, frames[i]) {
			t.Fatalf("registration %d:\n got %s\nwant %s", i, f.Raw, frames[i])
		}
	}
	if strings.Contains(x.logs.String(), "setup failed") {
		t.Fatalf("setup failed: %s", x.logs.String())
	}
}

func TestRegisterRejects(t *testing.T) {
	tests := []struct {
		name     string
		register func(s *Session) error
		wantErr  string
	}{
		{"frame too long", func(s *Session) error {
			return s.RegisterToolFrame(append(append([]byte(`{"x":"`), bytes.Repeat([]byte("a"), MaxLine)...), `"}`...))
		}, "limit"},
		{"frame with newline", func(s *Session) error {
			return s.RegisterToolFrame([]byte("{\"type\":\"register_tool\",\n\"name\":\"x\"}"))
		}, "newline"},
		{"frame not an object", func(s *Session) error { return s.RegisterToolFrame([]byte(`["x"]`)) }, "not a JSON object"},
		{"empty frame", func(s *Session) error { return s.RegisterToolFrame(nil) }, "not a JSON object"},
		{"tool without name", func(s *Session) error { return s.RegisterTool(Tool{}) }, "without name"},
		{"invalid schema", func(s *Session) error {
			return s.RegisterTool(Tool{Name: "x", Schema: json.RawMessage(`{"type":`)})
		}, "schema is not valid JSON"},
		{"invalid output schema", func(s *Session) error {
			return s.RegisterTool(Tool{Name: "x", OutputSchema: json.RawMessage(`nope`)})
		}, "output schema is not valid JSON"},
		{"tool too long", func(s *Session) error {
			return s.RegisterTool(Tool{Name: "x", Description: strings.Repeat("d", MaxLine)})
		}, "limit"},
		{"command without name", func(s *Session) error { return s.RegisterCommand("", "d") }, "without name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errc := make(chan error, 1)
			x := startRun(t, &testHandler{setup: func(_ context.Context, s *Session) error {
				errc <- tc.register(s)
				return nil
			}}, Options{}, hooks{})
			if regs := x.handshake(legacyAck()); len(regs) != 0 {
				t.Fatalf("rejected registration was sent: %v", regs)
			}
			err := recv(t, x.ctx, errc, "register error")
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestRegisterToolFrameTrailingNewline(t *testing.T) {
	frame := AppendToolFrame(nil, Tool{Name: "x"})
	x := startRun(t, &testHandler{setup: func(_ context.Context, s *Session) error {
		return s.RegisterToolFrame(append(slices.Clone(frame), '\n'))
	}}, Options{}, hooks{})
	regs := x.handshake(legacyAck())
	if len(regs) != 1 || !bytes.Equal(regs[0].Raw, frame) {
		t.Fatalf("registrations = %v, want %s", regs, frame)
	}
}

func TestConcurrentToolCalls(t *testing.T) {
	const n = 200
	var (
		mu      sync.Mutex
		arrived int
		all     = make(chan struct{})
	)
	h := &testHandler{call: func(ctx context.Context, c ToolCall) ToolResult {
		mu.Lock()
		arrived++
		if arrived == n {
			close(all)
		}
		mu.Unlock()
		// Every handler waits for all others: this only completes if all 200
		// calls are served at the same time.
		select {
		case <-all:
		case <-ctx.Done():
			return ToolResult{IsError: true}
		}
		return ToolResult{Content: []Content{{Type: "text", Text: c.ID + "|" + string(c.Args)}}}
	}}
	x := startRun(t, h, Options{}, hooks{})
	x.handshake(newAck())

	type outcome struct {
		id  string
		res exttest.ToolResult
		err error
	}
	results := make(chan outcome, n)
	for i := range n {
		go func() {
			id := fmt.Sprintf("call-%d", i)
			res, err := x.host.CallTool(x.ctx, id, "echo", map[string]int{"i": i})
			results <- outcome{id, res, err}
		}()
	}
	seen := make(map[string]bool)
	for range n {
		o := recv(t, x.ctx, results, "tool result")
		if o.err != nil {
			t.Fatal(o.err)
		}
		var i int
		if _, err := fmt.Sscanf(o.id, "call-%d", &i); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`%s|{"i":%d}`, o.id, i)
		if o.res.ID != o.id || o.res.Text() != want || o.res.IsError {
			t.Fatalf("result for %s = %+v, want text %q", o.id, o.res, want)
		}
		if seen[o.id] {
			t.Fatalf("duplicate result for %s", o.id)
		}
		seen[o.id] = true
	}
}

func TestToolArgsDefault(t *testing.T) {
	tests := []struct {
		name string
		line string
		want string
	}{
		{"absent args", `{"type":"tool_call","id":"1","name":"t"}`, "t:{}"},
		{"null args", `{"type":"tool_call","id":"1","name":"t","args":null}`, "t:{}"},
		{"object args", `{"type":"tool_call","id":"1","name":"t","args":{"a":[1, 2]}}`, `t:{"a":[1, 2]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := startRun(t, &testHandler{}, Options{}, hooks{})
			x.handshake(legacyAck())
			if err := x.host.SendLine([]byte(tc.line)); err != nil {
				t.Fatal(err)
			}
			res, err := x.host.WaitToolResult(x.ctx, "1")
			if err != nil {
				t.Fatal(err)
			}
			if res.Text() != tc.want {
				t.Fatalf("text = %q, want %q", res.Text(), tc.want)
			}
		})
	}
}

// callEvents collects the hooks' observations of tool calls.
type callEvents struct {
	done chan [2]any // {id, sent}
}

func newCallEvents() (*callEvents, hooks) {
	ev := &callEvents{done: make(chan [2]any, 16)}
	return ev, hooks{callDone: func(id string, sent bool) { ev.done <- [2]any{id, sent} }}
}

// syncPoint makes the extension process everything sent so far: an
// event_intercept is answered by the reader's dispatcher in line order.
func syncPoint(t *testing.T, x *harness, id string) {
	t.Helper()
	if err := x.host.Send(map[string]string{"type": "event_intercept", "id": id, "event": "turn_start"}); err != nil {
		t.Fatal(err)
	}
	f, err := x.host.Next(x.ctx, func(f exttest.Frame) bool { return f.Type == "event_intercept_response" && f.ID == id })
	if err != nil {
		t.Fatal(err)
	}
	if f.Has("block") {
		var block bool
		if err := json.Unmarshal(mustField(t, f, "block"), &block); err != nil || block {
			t.Fatalf("intercept response is not an allow: %s", f.Raw)
		}
	}
}

func mustField(t *testing.T, f exttest.Frame, key string) json.RawMessage {
	t.Helper()
	v, ok := f.Field(key)
	if !ok {
		t.Fatalf("frame has no %q: %s", key, f.Raw)
	}
	return v
}

// noResult fails if a tool_result for id is buffered.
func noResult(t *testing.T, x *harness, id string) {
	t.Helper()
	for _, f := range x.host.Pending() {
		if f.Type == "tool_result" && f.ID == id {
			t.Fatalf("unexpected tool_result for cancelled call %s: %s", id, f.Raw)
		}
	}
}

func TestToolCancel(t *testing.T) {
	t.Run("cancel while running", func(t *testing.T) {
		started := make(chan struct{})
		cause := make(chan error, 1)
		h := &testHandler{call: func(ctx context.Context, c ToolCall) ToolResult {
			if c.ID != "run" {
				return ToolResult{Content: []Content{{Type: "text", Text: "ok"}}}
			}
			close(started)
			<-ctx.Done()
			cause <- context.Cause(ctx)
			return ToolResult{Content: []Content{{Type: "text", Text: "too late"}}}
		}}
		ev, hk := newCallEvents()
		x := startRun(t, h, Options{}, hk)
		x.handshake(newAck())
		if err := x.host.SendToolCall("run", "slow", nil); err != nil {
			t.Fatal(err)
		}
		recv(t, x.ctx, started, "handler start")
		if err := x.host.Cancel("run"); err != nil {
			t.Fatal(err)
		}
		if err := recv(t, x.ctx, cause, "cancellation"); !errors.Is(err, ErrToolCancelled) {
			t.Fatalf("cause = %v, want ErrToolCancelled", err)
		}
		if d := recv(t, x.ctx, ev.done, "call done"); d != [2]any{"run", false} {
			t.Fatalf("done = %v, want {run false}", d)
		}
		// Frames are written in queue order, so once a later result arrived
		// a result for "run" would already be buffered.
		if _, err := x.host.CallTool(x.ctx, "after", "fast", nil); err != nil {
			t.Fatal(err)
		}
		noResult(t, x, "run")
	})

	t.Run("cancel before the handler starts", func(t *testing.T) {
		release := make(chan struct{})
		invoked := make(chan string, 4)
		h := &testHandler{call: func(_ context.Context, c ToolCall) ToolResult {
			invoked <- c.ID
			return ToolResult{Content: []Content{{Type: "text", Text: "ok"}}}
		}}
		ev, hk := newCallEvents()
		hk.callStart = func(id string) {
			if id == "early" {
				<-release
			}
		}
		x := startRun(t, h, Options{}, hk)
		x.handshake(newAck())
		if err := x.host.SendToolCall("early", "t", nil); err != nil {
			t.Fatal(err)
		}
		if err := x.host.Cancel("early"); err != nil {
			t.Fatal(err)
		}
		syncPoint(t, x, "sync") // the cancel has been dispatched
		close(release)
		if d := recv(t, x.ctx, ev.done, "call done"); d != [2]any{"early", false} {
			t.Fatalf("done = %v, want {early false}", d)
		}
		if _, err := x.host.CallTool(x.ctx, "after", "t", nil); err != nil {
			t.Fatal(err)
		}
		noResult(t, x, "early")
		if id := recv(t, x.ctx, invoked, "invocation"); id != "after" {
			t.Fatalf("handler invoked for %q; the cancelled call must not run", id)
		}
	})

	t.Run("unknown and finished ids are ignored", func(t *testing.T) {
		x := startRun(t, &testHandler{}, Options{}, hooks{})
		x.handshake(newAck())
		if _, err := x.host.CallTool(x.ctx, "1", "t", nil); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"1", "nope", ""} {
			if err := x.host.Cancel(id); err != nil {
				t.Fatal(err)
			}
		}
		res, err := x.host.CallTool(x.ctx, "2", "t", nil)
		if err != nil || res.Text() != "t:{}" {
			t.Fatalf("call after cancels = %+v, %v", res, err)
		}
	})
}

func TestOverlongHostLine(t *testing.T) {
	tests := []struct {
		name    string
		content int // bytes before the '\n'
		served  bool
	}{
		{name: "largest allowed line", content: MaxLine - 2, served: true},
		{name: "line of exactly MaxLine", content: MaxLine - 1},
		{name: "slightly over", content: MaxLine + 10},
		{name: "far over", content: 3 * MaxLine},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := startRun(t, &testHandler{}, Options{}, hooks{})
			x.handshake(legacyAck())
			head := `{"type":"event_intercept","id":"big","event":"turn_start","pad":"`
			tail := `"}`
			line := head + strings.Repeat("a", tc.content-len(head)-len(tail)) + tail
			if err := x.host.SendLine([]byte(line)); err != nil {
				t.Fatal(err)
			}
			syncPoint(t, x, "small")
			answered := false
			for _, f := range x.host.Pending() {
				answered = answered || (f.Type == "event_intercept_response" && f.ID == "big")
			}
			// An over-long intercept is answered too (with the allow the host would
			// assume after its 5 s wait), from the id at the start of the line.
			if !answered {
				t.Fatal("big line not answered")
			}
			if logged := strings.Contains(x.logs.String(), "over-long line"); logged == tc.served {
				t.Fatalf("over-long line logged = %v, want %v", logged, !tc.served)
			}
			if res, err := x.host.CallTool(x.ctx, "next", "t", nil); err != nil || res.Text() != "t:{}" {
				t.Fatalf("call after long line = %+v, %v", res, err)
			}
		})
	}
}

func TestBadHostFramesSurvive(t *testing.T) {
	tests := []struct {
		name string
		line string
		log  string
	}{
		{"not json", `hello there`, "malformed frame"},
		{"truncated json", `{"type":"tool_call","id":`, "malformed frame"},
		{"json array", `[1,2,3]`, "malformed frame"},
		{"type not a string", `{"type":7}`, "malformed frame"},
		{"missing type", `{"id":"x"}`, "without type"},
		{"unknown type", `{"type":"bogus","id":"x"}`, "unknown type"},
		{"tool_call without id", `{"type":"tool_call","name":"t"}`, "without id"},
		{"tool_call with numeric id", `{"type":"tool_call","id":5,"name":"t"}`, "undecodable"},
		{"command without id", `{"type":"command_invoked","name":"c"}`, "without id"},
		{"event", `{"type":"event","event":"turn_end","step":3}`, "ignoring host frame"},
		{"panel key", `{"type":"panel_key","panel_id":"p","key":"up"}`, "ignoring host frame"},
		{"host tool_result", `{"type":"tool_result","id":"sdk-1","content":[]}`, "ignoring host frame"},
		{"second hello_ack", `{"type":"hello_ack","protocol_version":1}`, "unknown type"},
		{"crlf line", "{\"type\":\"event\",\"event\":\"x\"}\r", "ignoring host frame"},
		{"blank line", `   `, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := startRun(t, &testHandler{}, Options{}, hooks{})
			x.handshake(legacyAck())
			if err := x.host.SendLine([]byte(tc.line)); err != nil {
				t.Fatal(err)
			}
			res, err := x.host.CallTool(x.ctx, "ok", "t", nil)
			if err != nil || res.Text() != "t:{}" {
				t.Fatalf("call after bad frame = %+v, %v", res, err)
			}
			if !strings.Contains(x.logs.String(), tc.log) {
				t.Fatalf("log does not mention %q:\n%s", tc.log, x.logs.String())
			}
			if p := x.host.Pending(); len(p) != 0 {
				t.Fatalf("bad frame produced output: %v", p)
			}
		})
	}
}

func TestEventInterceptAllowed(t *testing.T) {
	x := startRun(t, &testHandler{}, Options{}, hooks{})
	x.handshake(newAck())
	if err := x.host.SendLine([]byte(`{"type":"event_intercept","id":"i1","event":"tool_call","tool_name":"bash","tool_args":{"cmd":"ls"}}`)); err != nil {
		t.Fatal(err)
	}
	f, err := x.host.NextType(x.ctx, "event_intercept_response")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"event_intercept_response","id":"i1","block":false}`; string(f.Raw) != want {
		t.Fatalf("response = %s, want %s", f.Raw, want)
	}
}

// toolResultOverhead is the frame length of a one-text-block result for id
// with empty text.
func toolResultOverhead(t *testing.T, id string) int {
	b, err := encodeToolResult(id, ToolResult{Content: []Content{{Type: "text", Text: "x"}}}, GenNew)
	if err != nil {
		t.Fatal(err)
	}
	return len(b) - 1
}

func TestOversizedResult(t *testing.T) {
	fit := maxFrame - toolResultOverhead(t, "r")
	tests := []struct {
		name     string
		text     int
		replaced bool
	}{
		{name: "exactly at the limit", text: fit},
		{name: "one byte over", text: fit + 1, replaced: true},
		{name: "five MiB", text: 5 << 20, replaced: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &testHandler{call: func(context.Context, ToolCall) ToolResult {
				return ToolResult{Content: []Content{{Type: "text", Text: strings.Repeat("x", tc.text)}}}
			}}
			x := startRun(t, h, Options{}, hooks{})
			x.handshake(newAck())
			res, err := x.host.CallTool(x.ctx, "r", "big", nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Frame.Raw)+1 >= MaxLine {
				t.Fatalf("line of %d bytes written", len(res.Frame.Raw)+1)
			}
			if !tc.replaced {
				if res.IsError || len(res.Text()) != tc.text || len(res.Frame.Raw) != maxFrame {
					t.Fatalf("result altered: is_error=%v text=%d frame=%d", res.IsError, len(res.Text()), len(res.Frame.Raw))
				}
				return
			}
			if !res.IsError || !strings.Contains(res.Text(), "too large") || !strings.Contains(res.Text(), "ask for less") {
				t.Fatalf("oversized result not replaced: is_error=%v text=%.200q", res.IsError, res.Text())
			}
		})
	}
}

func TestOversizedCommandResponse(t *testing.T) {
	h := &testHandler{cmd: func(context.Context, Command) CommandResponse {
		return CommandResponse{Action: "display", Display: strings.Repeat("y", MaxLine)}
	}}
	x := startRun(t, h, Options{}, hooks{})
	x.handshake(newAck())
	r, err := x.host.Command(x.ctx, "c1", "big", "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Action != "noop" || !strings.Contains(r.Error, "too large") || r.Display != "" {
		t.Fatalf("response = %.300s", r.Frame.Raw)
	}
}

func TestNotify(t *testing.T) {
	tests := []struct {
		level, message string
		wantLevel      string
		wantLen        int // 0: message unchanged
	}{
		{level: "info", message: "hello", wantLevel: "info"},
		{level: "success", message: "done", wantLevel: "success"},
		{level: "warn", message: "careful", wantLevel: "warn"},
		{level: "error", message: "broke", wantLevel: "error"},
		{level: "debug", message: "odd level", wantLevel: "info"},
		{level: "", message: "no level", wantLevel: "info"},
		{level: "info", message: "long " + strings.Repeat("é", maxNotify), wantLevel: "info", wantLen: -1},
	}
	sessc := make(chan *Session, 1)
	x := startRun(t, &testHandler{setup: sessionOf(sessc)}, Options{}, hooks{})
	x.handshake(legacyAck())
	s := recv(t, x.ctx, sessc, "session")
	for _, tc := range tests {
		s.Notify(tc.level, tc.message)
		got, err := x.host.WaitNotify(x.ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if got.Level != tc.wantLevel {
			t.Errorf("%q: level = %q, want %q", tc.message[:min(10, len(tc.message))], got.Level, tc.wantLevel)
		}
		if tc.wantLen == 0 && got.Message != tc.message {
			t.Errorf("message = %q, want %q", got.Message, tc.message)
		}
		if tc.wantLen < 0 && (len(got.Message) > maxNotify+32 || !strings.HasSuffix(got.Message, "(truncated)")) {
			t.Errorf("long message not truncated: %d bytes", len(got.Message))
		}
	}
}

func TestShutdown(t *testing.T) {
	started := make(chan struct{})
	cause := make(chan error, 1)
	h := &testHandler{call: func(ctx context.Context, c ToolCall) ToolResult {
		close(started)
		<-ctx.Done()
		cause <- context.Cause(ctx)
		return ToolResult{Content: []Content{{Type: "text", Text: "late"}}}
	}}
	ev, hk := newCallEvents()
	sessc := make(chan *Session, 1)
	h.setup = sessionOf(sessc)
	x := startRun(t, h, Options{}, hk)
	x.handshake(newAck())
	s := recv(t, x.ctx, sessc, "session")
	if err := x.host.SendToolCall("slow", "t", nil); err != nil {
		t.Fatal(err)
	}
	recv(t, x.ctx, started, "handler start")
	if err := x.host.Shutdown(x.ctx); err != nil {
		t.Fatal(err)
	}
	if err := x.runErr(); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	if err := recv(t, x.ctx, cause, "handler cancellation"); !errors.Is(err, ErrShutdown) {
		t.Fatalf("cause = %v, want ErrShutdown", err)
	}
	if d := recv(t, x.ctx, ev.done, "call done"); d != [2]any{"slow", false} {
		t.Fatalf("late result was queued: %v", d)
	}
	// Late frames from the session are refused too.
	if err := s.RegisterCommand("late", ""); !errors.Is(err, ErrClosed) {
		t.Fatalf("RegisterCommand after shutdown = %v, want ErrClosed", err)
	}
	s.Notify("info", "late note")
	x.closeOutput()
	if p := x.host.Pending(); len(p) != 0 {
		t.Fatalf("frames after shutdown_ack: %v", p)
	}
}

func TestStdinEOF(t *testing.T) {
	started := make(chan struct{})
	cause := make(chan error, 1)
	h := &testHandler{call: func(ctx context.Context, c ToolCall) ToolResult {
		close(started)
		<-ctx.Done()
		cause <- context.Cause(ctx)
		return ToolResult{}
	}}
	x := startRun(t, h, Options{}, hooks{})
	x.handshake(legacyAck())
	if err := x.host.SendToolCall("slow", "t", nil); err != nil {
		t.Fatal(err)
	}
	recv(t, x.ctx, started, "handler start")
	if err := x.host.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	if err := x.runErr(); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	if err := recv(t, x.ctx, cause, "handler cancellation"); !errors.Is(err, ErrShutdown) {
		t.Fatalf("cause = %v, want ErrShutdown", err)
	}
	x.closeOutput()
	for _, f := range x.host.Pending() {
		if f.Type == "shutdown_ack" || f.Type == "tool_result" {
			t.Fatalf("unexpected frame after EOF: %s", f.Raw)
		}
	}
}

func TestContextCancelEndsRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	host, in, out := exttest.NewPipe(t)
	errc := make(chan error, 1)
	go func() { errc <- Run(ctx, in, out, &testHandler{}, Options{Name: "t"}) }()
	guard, stop := context.WithTimeout(context.Background(), hangGuard)
	defer stop()
	host.ExpectHello(guard)
	host.Handshake(guard, legacyAck())
	cancel()
	if err := recv(t, guard, errc, "Run"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}

func TestGeneration(t *testing.T) {
	tests := []struct {
		name        string
		ack         exttest.Ack
		wantGen     Generation
		wantPresent bool
		wantCaps    []string
	}{
		{name: "capabilities absent", ack: exttest.Ack{ZotVersion: "0.1.62"}, wantGen: GenLegacy},
		{name: "capabilities empty", ack: exttest.Ack{Capabilities: []string{}}, wantGen: GenNew, wantPresent: true, wantCaps: []string{}},
		{name: "call_tool", ack: exttest.Ack{Capabilities: []string{"call_tool"}}, wantGen: GenNew, wantPresent: true, wantCaps: []string{"call_tool"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sessc := make(chan *Session, 1)
			x := startRun(t, &testHandler{setup: sessionOf(sessc)}, Options{}, hooks{})
			ack := tc.ack
			ack.Cwd, ack.Provider, ack.Model, ack.ExtensionDir, ack.DataDir = "/proj", "anthropic", "m", "/ext", "/data"
			x.handshake(ack)
			info := recv(t, x.ctx, sessc, "session").Host()
			if info.Generation() != tc.wantGen || info.CapabilitiesPresent != tc.wantPresent {
				t.Fatalf("generation %v present %v, want %v %v", info.Generation(), info.CapabilitiesPresent, tc.wantGen, tc.wantPresent)
			}
			if !slices.Equal(info.Capabilities, tc.wantCaps) || (tc.wantCaps != nil) != (info.Capabilities != nil) {
				t.Fatalf("capabilities = %#v, want %#v", info.Capabilities, tc.wantCaps)
			}
			want := HostInfo{ProtocolVersion: 1, Capabilities: info.Capabilities, CapabilitiesPresent: tc.wantPresent,
				ZotVersion: tc.ack.ZotVersion, Provider: "anthropic", Model: "m", Cwd: "/proj", ExtensionDir: "/ext", DataDir: "/data"}
			if fmt.Sprint(info) != fmt.Sprint(want) {
				t.Fatalf("host info = %+v, want %+v", info, want)
			}
		})
	}
}

func TestParseHelloAck(t *testing.T) {
	tests := []struct {
		line        string
		wantPresent bool
		wantCaps    []string
		wantErr     bool
	}{
		{line: `{"type":"hello_ack","protocol_version":1}`},
		{line: `{"type":"hello_ack","protocol_version":1,"capabilities":null}`},
		{line: `{"type":"hello_ack","protocol_version":1,"capabilities":[]}`, wantPresent: true, wantCaps: []string{}},
		{line: `{"type":"hello_ack","protocol_version":1,"capabilities":["call_tool","x"]}`, wantPresent: true, wantCaps: []string{"call_tool", "x"}},
		{line: `{"type":"hello_ack","capabilities":["call_tool",7]}`, wantPresent: true, wantCaps: []string{"call_tool"}},
		{line: `{"type":"hello_ack","capabilities":{}}`, wantPresent: true, wantCaps: []string{}},
		{line: `{"type":"hello"}`, wantErr: true},
		{line: `{}`, wantErr: true},
		{line: `nope`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			info, _, err := parseHelloAck([]byte(tc.line))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if info.CapabilitiesPresent != tc.wantPresent || !slices.Equal(info.Capabilities, tc.wantCaps) {
				t.Fatalf("present %v caps %#v, want %v %#v", info.CapabilitiesPresent, info.Capabilities, tc.wantPresent, tc.wantCaps)
			}
		})
	}
}

func TestGenerationString(t *testing.T) {
	tests := []struct {
		g    Generation
		want string
	}{{GenLegacy, "legacy (OLD or MID)"}, {GenNew, "new"}, {Generation(9), "unknown"}}
	for _, tc := range tests {
		if got := tc.g.String(); got != tc.want {
			t.Errorf("%d.String() = %q, want %q", tc.g, got, tc.want)
		}
	}
}

func TestClearNotesOnlyOnNewHosts(t *testing.T) {
	tests := []struct {
		name string
		ack  exttest.Ack
		want bool
	}{
		{"legacy host", legacyAck(), false},
		{"new host", newAck(), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := startRun(t, &testHandler{setup: func(_ context.Context, s *Session) error {
				s.ClearNotes()
				s.Notify("info", "marker")
				return nil
			}}, Options{}, hooks{})
			x.handshake(tc.ack)
			if _, err := x.host.WaitNotify(x.ctx, "marker"); err != nil {
				t.Fatal(err)
			}
			// clear_notes was queued before the marker, so it is buffered by now.
			got := false
			for _, f := range x.host.Pending() {
				if f.Type == "clear_notes" {
					got = true
					if string(f.Raw) != `{"type":"clear_notes"}` {
						t.Fatalf("clear_notes = %s", f.Raw)
					}
				}
			}
			if got != tc.want {
				t.Fatalf("clear_notes sent = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestToolResultFrame(t *testing.T) {
	full := ToolResult{
		Content:           []Content{{Type: "text", Text: "hi"}, {Type: "image", MimeType: "image/png", Data: "AAAA"}},
		IsError:           true,
		ActivateTools:     []string{"a", "b"},
		StructuredContent: json.RawMessage(`{"n":1}`),
	}
	tests := []struct {
		name string
		ack  exttest.Ack
		res  ToolResult
		want string
	}{
		{"empty result", newAck(), ToolResult{}, `{"type":"tool_result","id":"1","content":[]}`},
		{"full result to new host", newAck(), full,
			`{"type":"tool_result","id":"1","content":[{"type":"text","text":"hi"},{"type":"image","mime_type":"image/png","data":"AAAA"}],"is_error":true,"activate_tools":["a","b"],"structured_content":{"n":1}}`},
		{"structured content dropped for legacy host", legacyAck(), full,
			`{"type":"tool_result","id":"1","content":[{"type":"text","text":"hi"},{"type":"image","mime_type":"image/png","data":"AAAA"}],"is_error":true,"activate_tools":["a","b"]}`},
		{"invalid structured content dropped", newAck(), ToolResult{Content: []Content{{Type: "text", Text: "<&>"}}, StructuredContent: json.RawMessage(`{bad`)},
			`{"type":"tool_result","id":"1","content":[{"type":"text","text":"<&>"}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := startRun(t, &testHandler{call: func(context.Context, ToolCall) ToolResult { return tc.res }}, Options{}, hooks{})
			x.handshake(tc.ack)
			res, err := x.host.CallTool(x.ctx, "1", "t", nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Frame.Raw) != tc.want {
				t.Fatalf("frame:\n got %s\nwant %s", res.Frame.Raw, tc.want)
			}
		})
	}
}

func TestToolPanicBecomesError(t *testing.T) {
	x := startRun(t, &testHandler{call: func(_ context.Context, c ToolCall) ToolResult {
		if c.ID == "1" {
			panic("kaboom")
		}
		return ToolResult{Content: []Content{{Type: "text", Text: "fine"}}}
	}}, Options{}, hooks{})
	x.handshake(newAck())
	res, err := x.host.CallTool(x.ctx, "1", "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Text(), "kaboom") {
		t.Fatalf("result = %+v", res)
	}
	if res, err := x.host.CallTool(x.ctx, "2", "t", nil); err != nil || res.IsError {
		t.Fatalf("after panic: %+v %v", res, err)
	}
}

func TestCommandResponses(t *testing.T) {
	tests := []struct {
		name string
		args string
		resp CommandResponse
		want string
	}{
		{"empty action is noop", "", CommandResponse{}, `{"type":"command_response","id":"c","action":"noop"}`},
		{"prompt", "x y", CommandResponse{Action: "prompt", Prompt: "do it"}, `{"type":"command_response","id":"c","action":"prompt","prompt":"do it"}`},
		{"insert", "", CommandResponse{Action: "insert", Insert: "text"}, `{"type":"command_response","id":"c","action":"insert","insert":"text"}`},
		{"display with error", "", CommandResponse{Action: "display", Display: "d", Error: "e"}, `{"type":"command_response","id":"c","action":"display","display":"d","error":"e"}`},
		{"open panel", "", CommandResponse{Action: "open_panel", Panel: &Panel{ID: "p", Title: "T", Lines: []string{"a", "b"}, Footer: "f"}},
			`{"type":"command_response","id":"c","action":"open_panel","open_panel":{"id":"p","title":"T","lines":["a","b"],"footer":"f"}}`},
		{"open panel without lines", "", CommandResponse{Action: "open_panel", Panel: &Panel{ID: "p"}},
			`{"type":"command_response","id":"c","action":"open_panel","open_panel":{"id":"p","lines":[]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan Command, 1)
			h := &testHandler{cmd: func(ctx context.Context, c Command) CommandResponse {
				if _, ok := ctx.Deadline(); !ok {
					t.Error("command context has no deadline")
				}
				got <- c
				return tc.resp
			}}
			x := startRun(t, h, Options{}, hooks{})
			x.handshake(newAck())
			r, err := x.host.Command(x.ctx, "c", "mcp", tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Frame.Raw) != tc.want {
				t.Fatalf("frame:\n got %s\nwant %s", r.Frame.Raw, tc.want)
			}
			if c := recv(t, x.ctx, got, "command"); c != (Command{ID: "c", Name: "mcp", Args: tc.args}) {
				t.Fatalf("command = %+v", c)
			}
		})
	}
}

func TestCommandRunsWhileToolBlocks(t *testing.T) {
	release := make(chan struct{})
	h := &testHandler{call: func(ctx context.Context, c ToolCall) ToolResult {
		<-release
		return ToolResult{Content: []Content{{Type: "text", Text: "done"}}}
	}}
	x := startRun(t, h, Options{}, hooks{})
	x.handshake(newAck())
	if err := x.host.SendToolCall("blocked", "t", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := x.host.Command(x.ctx, "c", "status", ""); err != nil {
		t.Fatal(err)
	}
	close(release)
	if res, err := x.host.WaitToolResult(x.ctx, "blocked"); err != nil || res.Text() != "done" {
		t.Fatalf("blocked call = %+v, %v", res, err)
	}
}

// Host lines are read even when nobody is done with the previous ones:
// a flood of frames while handlers block must not stall the reader.
func TestReaderKeepsReading(t *testing.T) {
	release := make(chan struct{})
	h := &testHandler{call: func(ctx context.Context, c ToolCall) ToolResult {
		if c.Name == "block" {
			<-release
		}
		return ToolResult{}
	}}
	x := startRun(t, h, Options{}, hooks{})
	x.handshake(newAck())
	for i := range 500 {
		if err := x.host.SendToolCall(fmt.Sprint("b", i), "block", nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 500 {
		if err := x.host.Send(map[string]string{"type": "event", "event": "turn_start", "n": fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	syncPoint(t, x, "after-flood")
	close(release)
	for i := range 500 {
		if _, err := x.host.WaitToolResult(x.ctx, fmt.Sprint("b", i)); err != nil {
			t.Fatal(err)
		}
	}
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestWriteFailureEndsRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	in, inW := io.Pipe()
	defer inW.Close()
	err := Run(ctx, in, errWriter{}, &testHandler{}, Options{Name: "t"})
	if !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("Run = %v, want the write error", err)
	}
}
