package extension

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
)

// TestRegisterToolFrames checks what a batch of frames becomes on the wire: every good
// frame in order, byte for byte; bad ones left out and named in the error.
func TestRegisterToolFrames(t *testing.T) {
	good := func(name string) string { return string(AppendToolFrame(nil, Tool{Name: name, Deferred: true})) }
	huge := `{"type":"register_tool","name":"huge","description":"` + strings.Repeat("x", MaxLine) + `"}`
	tests := []struct {
		name    string
		batch   string
		want    []string
		wantErr []string // substrings of the error; none means no error
	}{
		{"one", good("a") + "\n", []string{good("a")}, nil},
		{"several", good("a") + "\n" + good("b") + "\n" + good("c") + "\n", []string{good("a"), good("b"), good("c")}, nil},
		{"last without newline", good("a") + "\n" + good("b"), []string{good("a"), good("b")}, nil},
		{"CRLF and blank lines", good("a") + "\r\n\n" + good("b") + "\r\n", []string{good("a"), good("b")}, nil},
		{"not an object is dropped", good("a") + "\n[1]\n" + good("b") + "\n", []string{good("a"), good("b")}, []string{"not a JSON object: [1]"}},
		{"over-long frame is dropped", good("a") + "\n" + huge + "\n" + good("b") + "\n", []string{good("a"), good("b")}, []string{"the limit is"}},
		{"nothing good", "nope\n", nil, []string{"not a JSON object: nope"}},
		{"empty", "", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errc := make(chan error, 1)
			x := startRun(t, &testHandler{setup: func(_ context.Context, s *Session) error {
				errc <- s.RegisterToolFrames([]byte(tc.batch))
				return nil
			}}, Options{}, hooks{})
			regs := x.handshake(newAck())
			err := recv(t, x.ctx, errc, "RegisterToolFrames")
			var got []string
			for _, f := range regs {
				got = append(got, string(f.Raw))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("registered:\n got %.200q\nwant %.200q", got, tc.want)
			}
			if len(tc.wantErr) == 0 && err != nil {
				t.Errorf("error %v, want none", err)
			}
			for _, w := range tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v, want it to contain %q", err, w)
				}
			}
		})
	}
}

// TestRegisterToolFramesOneWrite checks that a batch of 2,000 frames (together far over
// the line limit) reaches the host whole and in a handful of writes, where one frame at a
// time takes a write per buffer-full at best.
func TestRegisterToolFramesOneWrite(t *testing.T) {
	const n = 2000
	var batch []byte
	var want [][]byte
	for i := range n {
		start := len(batch)
		batch = AppendToolFrame(batch, Tool{Name: fmt.Sprintf("mcp__srv__tool_%04d", i), Description: strings.Repeat("describes the tool. ", 20),
			Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`), Deferred: true})
		want = append(want, bytes.Clone(batch[start:]))
		batch = append(batch, '\n')
	}
	if len(batch) < 2*writerBuffer {
		t.Fatalf("batch of %d bytes is too small to tell one write from many", len(batch))
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	host, in, out := exttest.NewPipe(t)
	cw := &countingWriter{w: out}
	errc := make(chan error, 1)
	go func() {
		errc <- Run(ctx, in, cw, &testHandler{setup: func(_ context.Context, s *Session) error {
			return s.RegisterToolFrames(batch)
		}}, Options{Name: "test"})
	}()
	host.ExpectHello(ctx)
	before := cw.writes.Load()
	regs := host.Handshake(ctx, newAck())
	writes := cw.writes.Load() - before
	if len(regs) != n {
		t.Fatalf("got %d registrations, want %d", len(regs), n)
	}
	for i, f := range regs {
		if !bytes.Equal(f.Raw, want[i]) {
			t.Fatalf("registration %d:\n got %.200s\nwant %.200s", i, f.Raw, want[i])
		}
	}
	// The batch is one write; ready and the newline after the batch may take one or two more.
	if writes > 3 {
		t.Errorf("%d writes for %d bytes of frames and ready, want at most 3", writes, len(batch))
	}
	if err := host.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}
