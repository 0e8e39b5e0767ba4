package extension

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
)

// FuzzHostFrames feeds arbitrary bytes as the host's frames after a valid hello_ack and
// checks what the extension writes: no panic, and every output line is one valid JSON
// object with a string type, shorter than the host's 4 MiB line cap. The handler echoes
// tool arguments and command arguments back, so host input reaches the encoders.
func FuzzHostFrames(f *testing.F) {
	for _, s := range []string{
		`{"type":"tool_call","id":"1","name":"t","args":{"a":"b"}}`,
		`{"type":"tool_call","id":"1","name":"t","args":null}` + "\n" + `{"type":"tool_cancel","id":"1"}`,
		`{"type":"tool_call","id":"d","name":"t"}` + "\n" + `{"type":"tool_call","id":"d","name":"t"}`,
		`{"type":"command_invoked","id":"c","name":"mcp","args":"status \u0000 \ud800"}`,
		`{"type":"event_intercept","id":"i","event":"tool_call"}`,
		`{"type":"tool_call","id":5}` + "\n" + `[1,2]` + "\n" + `{"type":7}` + "\nnot json\n\r\n",
		`{"type":"tool_call","id":"x","name":"t","args":{"s":"\xff\xfe"}}`,
		`{"type":"shutdown"}`,
	} {
		f.Add([]byte(s + "\n"))
	}
	h := &testHandler{
		call: func(_ context.Context, c ToolCall) ToolResult {
			return ToolResult{Content: []Content{{Type: "text", Text: c.Name + ":" + string(c.Args)}}, IsError: strings.Contains(string(c.Args), "err")}
		},
		cmd: func(_ context.Context, c Command) CommandResponse {
			return CommandResponse{Action: "display", Display: c.Args}
		},
	}
	f.Fuzz(func(t *testing.T, frames []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		out := &syncWatch{synced: make(chan struct{})}
		var calls sync.WaitGroup
		in := &fuzzInput{
			data:   bytes.NewReader(append([]byte(`{"type":"hello_ack","protocol_version":1,"cwd":"/p"}`+"\n"), frames...)),
			ctx:    ctx,
			synced: out.synced,
			calls:  &calls,
		}
		hk := hooks{callQueued: func(string) { calls.Add(1) }, callDone: func(string, bool) { calls.Done() }}
		_ = run(ctx, in, out, h, Options{Name: "fuzz", Log: zerolog.Nop()}, hk)
		for i, line := range strings.Split(out.buf.String(), "\n") {
			if line == "" {
				continue
			}
			if len(line)+1 >= MaxLine {
				t.Fatalf("output line %d is %d bytes", i, len(line))
			}
			var frame struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal([]byte(line), &frame); err != nil || frame.Type == "" {
				t.Fatalf("output line %d is not a typed JSON object (%v): %.200q", i, err, line)
			}
		}
	})
}

// fuzzSync is the intercept the fuzz input ends with (on a line of its own, whatever the
// data ended with): once it is answered, every line before it has been dispatched.
const fuzzSync = "\n" + `{"type":"event_intercept","id":"fuzz-sync","event":"turn_start"}` + "\n"

// fuzzInput is the host's stdin for FuzzHostFrames: the data, then fuzzSync, then EOF
// once fuzzSync was answered and every tool call finished, so their results are written
// (and checked) before Run returns.
type fuzzInput struct {
	data   *bytes.Reader
	sync   *bytes.Reader
	ctx    context.Context
	synced <-chan struct{}
	calls  *sync.WaitGroup
}

func (in *fuzzInput) Read(p []byte) (int, error) {
	if in.data.Len() > 0 {
		return in.data.Read(p)
	}
	if in.sync == nil {
		in.sync = bytes.NewReader([]byte(fuzzSync))
	}
	if in.sync.Len() > 0 {
		return in.sync.Read(p)
	}
	select {
	case <-in.synced:
		in.calls.Wait()
	case <-in.ctx.Done():
	}
	return 0, io.EOF
}

// syncWatch records the output and closes synced when the fuzzSync answer is written.
type syncWatch struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	synced chan struct{}
	once   sync.Once
}

func (w *syncWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if bytes.Contains(w.buf.Bytes(), []byte(`"id":"fuzz-sync"`)) {
		w.once.Do(func() { close(w.synced) })
	}
	return len(p), nil
}
