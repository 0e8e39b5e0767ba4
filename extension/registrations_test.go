package extension

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
)

// TestAddPayloadEqualsAppendToolFrame: a frame built from a tool's payload under a name
// is byte for byte the frame AppendToolFrame encodes for the whole tool, whatever the
// flags, escapes and schemas; the payload decodes back to what it was made of.
func TestAddPayloadEqualsAppendToolFrame(t *testing.T) {
	schema := json.RawMessage(`{ "type": "object", "properties": {"p": {"type": "string"}} }`)
	out := json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}}}`)
	tests := []Tool{
		{Name: "mcp__a__b", Description: "plain", Schema: schema},
		{Name: "mcp__a__c", Description: "with \"quotes\", <html> & a\nnewline", Schema: schema, Deferred: true},
		{Name: "odd \"name\"", Description: "", Interactive: true},
		{Name: "mcp__a__d", Description: "output", Schema: schema, OutputSchema: out, Deferred: true, Interactive: true},
		{Name: "mcp__a__e", Description: "bad schema", Schema: json.RawMessage(`{nope`), OutputSchema: json.RawMessage(`[`)},
		{Name: "mcp__gh__f", Description: "in a namespace", Schema: schema, Deferred: true,
			Namespace: Namespace{Name: "gh", Description: "GitHub: \"issues\"\nand pulls", Instructions: "Ask before pushing."}},
		{Name: "mcp__gh__g", Description: "namespace and output", Schema: schema, OutputSchema: out, Interactive: true, Namespace: Namespace{Name: "gh"}},
	}
	for _, tool := range tests {
		t.Run(tool.Name, func(t *testing.T) {
			p := EncodeToolPayload(tool)
			if !p.Valid() {
				t.Fatalf("payload of the wrong shape: %s", p)
			}
			var r Registrations
			if err := r.AddPayloadIn(tool.Name, p, EncodeNamespace(tool.Namespace), tool.Deferred, tool.Interactive); err != nil {
				t.Fatal(err)
			}
			want := append(AppendToolFrame(nil, tool), '\n')
			// A payload made into the frame (AddMadeIn) gives the same frame.
			var made Registrations
			if err := made.AddMadeIn(tool.Name, func(dst []byte) []byte { return AppendToolPayload(dst, tool) }, EncodeNamespace(tool.Namespace), tool.Deferred, tool.Interactive); err != nil {
				t.Fatal(err)
			}
			if made.Len() != 1 || !bytes.Equal(made.Bytes(), r.Bytes()) {
				t.Fatalf("frame with its payload made in it:\n got %s\nwant %s", made.Bytes(), r.Bytes())
			}
			if r.Len() != 1 || !sameJSON(r.Bytes(), want) {
				t.Fatalf("frame from payload:\n got %s\nwant %s", r.Bytes(), want)
			}
			// The flags follow the payload, so only an output schema moves them.
			if !p.HasOutputSchema() && !bytes.Equal(r.Bytes(), want) {
				t.Fatalf("frame from payload:\n got %s\nwant %s", r.Bytes(), want)
			}
			back, err := p.Decode()
			if err != nil || back.Description != tool.Description {
				t.Fatalf("decoded %+v, %v", back, err)
			}
			stripped := p.WithoutOutputSchema()
			if stripped.HasOutputSchema() || !stripped.Valid() {
				t.Fatalf("output schema not removed: %s", stripped)
			}
			if again, err := stripped.Decode(); err != nil || again.Description != tool.Description || !bytes.Equal(again.Schema, back.Schema) {
				t.Fatalf("stripping lost more than the output schema: %s", stripped)
			}
		})
	}
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && reflect.DeepEqual(va, vb)
}

// TestAddPayloadRefuses: bad input adds nothing and says why.
func TestAddPayloadRefuses(t *testing.T) {
	var r Registrations
	for _, tc := range []struct {
		name    string
		payload ToolPayload
		want    string
	}{
		{"", EncodeToolPayload(Tool{}), "without name"},
		{"x", ToolPayload(`{"description":"x"}`), "not a run of JSON members"},
		{"x", ToolPayload("\"description\":\"a\nb\""), "not a run of JSON members"},
		{"x", ToolPayload(`"description":"` + strings.Repeat("d", MaxLine) + `"`), "the limit is"},
	} {
		if err := r.AddPayload(tc.name, tc.payload, false, false); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddPayload(%q, %.40s): %v, want %q", tc.name, tc.payload, err, tc.want)
		}
		if bytes.IndexByte(tc.payload, '\n') >= 0 {
			continue // AddMadeIn's payloads never hold one
		}
		made := func(dst []byte) []byte { return append(dst, tc.payload...) }
		if err := r.AddMadeIn(tc.name, made, nil, false, false); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddMadeIn(%q, %.40s): %v, want %q", tc.name, tc.payload, err, tc.want)
		}
	}
	for _, p := range []string{"", `"d":1,`, `"d":"\`} {
		if err := r.AddMadeIn("x", func(dst []byte) []byte { return append(dst, p...) }, nil, false, false); err == nil {
			t.Errorf("AddMadeIn of payload %q: no error", p)
		}
	}
	if r.Len() != 0 || len(r.Bytes()) != 0 {
		t.Fatalf("refused frames were added: %d, %.80s", r.Len(), r.Bytes())
	}
	var tooLarge *FrameTooLargeError
	err := r.AddPayload("x", ToolPayload(`"description":"`+strings.Repeat("d", MaxLine)+`"`), false, false)
	if !errors.As(err, &tooLarge) || tooLarge.Tool != "x" || tooLarge.Size <= tooLarge.Limit || tooLarge.Limit >= MaxLine {
		t.Fatalf("an over-long frame gives %#v, want a FrameTooLargeError", err)
	}
}

// registrationsOf runs a session whose Setup calls register and returns the raw frames
// the host saw before ready, how many writes reached stdout between hello and ready, and
// what register returned.
func registrationsOf(t *testing.T, register func(*Session) error) ([]string, int64, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	host, in, out := exttest.NewPipe(t)
	cw := &countingWriter{w: out}
	errc := make(chan error, 1)
	runErr := make(chan error, 1)
	go func() {
		runErr <- Run(ctx, in, cw, &testHandler{setup: func(_ context.Context, s *Session) error {
			errc <- register(s)
			return nil
		}}, Options{Name: "test"})
	}()
	host.ExpectHello(ctx)
	before := cw.writes.Load()
	var got []string
	for _, f := range host.Handshake(ctx, newAck()) {
		got = append(got, string(f.Raw))
	}
	writes := cw.writes.Load() - before
	err := recv(t, ctx, errc, "register")
	if err := host.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, ctx, runErr, "Run"); err != nil {
		t.Fatal(err)
	}
	return got, writes, err
}

// TestRegisterAndReplay: registrations built with Registrations reach the host in one
// write, byte for byte, and their Bytes, replayed in another session with
// RegisterEncoded (as a startup file does), give the host the very same frames in one
// write.
func TestRegisterAndReplay(t *testing.T) {
	const n = 2000
	build := func() *Registrations {
		var r Registrations
		if err := r.AddTool(Tool{Name: "search", Description: "finds", Schema: json.RawMessage(`{"type":"object"}`)}); err != nil {
			t.Fatal(err)
		}
		p := EncodeToolPayload(Tool{Description: strings.Repeat("describes the tool. ", 20), Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)})
		for i := range n {
			if err := r.AddPayload(fmt.Sprintf("mcp__srv__tool_%04d", i), p, true, i%7 == 0); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.AddCommand("mcp", "MCP servers"); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	saved := bytes.Clone(build().Bytes())
	if len(saved) < 2*writerBuffer {
		t.Fatalf("%d bytes of frames are too few to tell one write from many", len(saved))
	}
	built, writes, err := registrationsOf(t, func(s *Session) error { return s.Register(build()) })
	if err != nil {
		t.Fatal(err)
	}
	if len(built) != n+2 || !strings.Contains(built[0], `"name":"search"`) || !strings.Contains(built[n+1], `"type":"register_command"`) {
		t.Fatalf("got %d registrations, want %d in order", len(built), n+2)
	}
	// The frames are one write; ready and the newline after them may take one or two more.
	if writes > 3 {
		t.Errorf("%d writes for %d bytes of frames and ready, want at most 3", writes, len(saved))
	}
	replayed, writes, err := registrationsOf(t, func(s *Session) error { return s.RegisterEncoded(bytes.Clone(saved)) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(replayed, "\n") != strings.Join(built, "\n") {
		t.Fatal("replayed registrations differ from the built ones")
	}
	if writes > 3 {
		t.Errorf("%d writes for replayed frames and ready, want at most 3", writes)
	}
}

// TestRegisterEncodedRefuses: encoded registrations that a host could not read (damaged
// or not registrations) are refused whole, so nothing half-broken reaches the host and
// the caller can build them instead.
func TestRegisterEncodedRefuses(t *testing.T) {
	var r Registrations
	if err := r.AddTool(Tool{Name: "a"}); err != nil {
		t.Fatal(err)
	}
	good := string(r.Bytes())
	tests := []struct{ name, frames, want string }{
		{"no final newline", good + `{"type":"register_tool","name":"b"}`, "do not end with a newline"},
		{"not a registration", good + `{"type":"notify","level":"info","message":"x"}` + "\n", "not a register_tool or register_command"},
		{"not an object", good + "[1]\n", "not a register_tool or register_command"},
		{"blank line", good + "\n", "not a register_tool or register_command"},
		{"over-long", `{"type":"register_tool","name":"` + strings.Repeat("x", MaxLine) + "\"}\n", "the limit is"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := registrationsOf(t, func(s *Session) error { return s.RegisterEncoded([]byte(tc.frames)) })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
			if len(got) != 0 {
				t.Errorf("refused frames reached the host: %.200q", got)
			}
		})
	}
}

// TestRegisterStreamed: registrations streamed to the session while they are built
// (StreamTo) reach the host as the same frames in the same order as registered whole,
// the first of them handed to the writer before the last is added, and the frames that
// go out stay as they were while the rest are added to the same buffer.
func TestRegisterStreamed(t *testing.T) {
	const n = 2000
	p := EncodeToolPayload(Tool{Description: strings.Repeat("describes the tool. ", 20), Schema: json.RawMessage(`{"type":"object"}`)})
	build := func(s *Session, handedEarly *bool) *Registrations {
		var r Registrations
		if s != nil {
			r.StreamTo(s, 64<<10)
		}
		if err := r.AddTool(Tool{Name: "search", Description: "finds", Schema: json.RawMessage(`{"type":"object"}`)}); err != nil {
			t.Fatal(err)
		}
		r.Grow(n * PayloadFrameSize(20, p))
		for i := range n {
			if err := r.AddPayload(fmt.Sprintf("mcp__srv__tool_%04d", i), p, true, i%7 == 0); err != nil {
				t.Fatal(err)
			}
		}
		if handedEarly != nil {
			*handedEarly = r.Len() < n
		}
		if err := r.AddCommand("mcp", "MCP servers"); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	whole, _, err := registrationsOf(t, func(s *Session) error { return s.Register(build(nil, nil)) })
	if err != nil {
		t.Fatal(err)
	}
	var early bool
	streamed, _, err := registrationsOf(t, func(s *Session) error { return s.Register(build(s, &early)) })
	if err != nil {
		t.Fatal(err)
	}
	if !early {
		t.Error("no frames were handed to the writer while they were built")
	}
	if len(whole) != n+2 || strings.Join(streamed, "\n") != strings.Join(whole, "\n") {
		t.Fatalf("streamed %d registrations differ from %d registered whole", len(streamed), len(whole))
	}
}

// TestRegisterAppended: frames built apart and appended (Append) reach the host after the
// ones built before them and before the ones added later, in order, whether the
// registrations stream to the session (StreamTo) or are registered whole.
func TestRegisterAppended(t *testing.T) {
	const n = 600
	p := EncodeToolPayload(Tool{Description: strings.Repeat("describes the tool. ", 20), Schema: json.RawMessage(`{"type":"object"}`)})
	add := func(r *Registrations, from, to int) {
		for i := from; i < to; i++ {
			if err := r.AddPayload(fmt.Sprintf("mcp__srv__tool_%04d", i), p, true, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	build := func(s *Session, parts bool) *Registrations {
		var r Registrations
		if s != nil {
			r.StreamTo(s, 64<<10)
		}
		if !parts {
			add(&r, 0, n)
		} else {
			var second Registrations
			add(&second, n/2, n)
			add(&r, 0, n/2)
			r.Append(&second)
			r.Append(&Registrations{}) // nothing to add
		}
		if err := r.AddCommand("mcp", "MCP servers"); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	whole, _, err := registrationsOf(t, func(s *Session) error { return s.Register(build(nil, false)) })
	if err != nil {
		t.Fatal(err)
	}
	if len(whole) != n+1 {
		t.Fatalf("%d registrations, want %d", len(whole), n+1)
	}
	for _, streamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("streamed=%v", streamed), func(t *testing.T) {
			got, _, err := registrationsOf(t, func(s *Session) error {
				if streamed {
					return s.Register(build(s, true))
				}
				return s.Register(build(nil, true))
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(whole, "\n") {
				t.Fatalf("%d registrations built in parts differ from %d built in one", len(got), len(whole))
			}
		})
	}
}

// TestAppendCompactToolPayload: for schemas that compacting gives back unchanged (or
// absent), the payload that copies them is AppendToolPayload's.
func TestAppendCompactToolPayload(t *testing.T) {
	for _, tc := range []Tool{
		{Description: "plain", Schema: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Description: "with output", Schema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)},
		{Description: "escapes \"\n\u0001", Schema: json.RawMessage(`{"description":"say \"hi\" \\ 日本 \u00e9 <b>"}`)},
		{Description: "no schema"},
		{Description: "null output", Schema: json.RawMessage(`{}`), OutputSchema: json.RawMessage(`null`)},
		{Description: "flags and namespace are not part of it", Schema: json.RawMessage(`{}`), Deferred: true, Interactive: true, Namespace: Namespace{Name: "n"}},
	} {
		t.Run(tc.Description, func(t *testing.T) {
			got, want := AppendCompactToolPayload([]byte("x"), tc), AppendToolPayload([]byte("x"), tc)
			if !bytes.Equal(got, want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestPieceReusesWrittenBuffer: piece k of registrations that stream (Piece) is built in
// the buffer of piece k-pieceRing() once the writer has written it, and in a fresh one when
// stop closes first; pieces of registrations that do not stream never wait. The host
// gets every frame in order either way.
func TestPieceReusesWrittenBuffer(t *testing.T) {
	p := EncodeToolPayload(Tool{Description: strings.Repeat("describes the tool. ", 20), Schema: json.RawMessage(`{"type":"object"}`)})
	add := func(r *Registrations, from, to int) {
		for i := from; i < to; i++ {
			if err := r.AddPayload(fmt.Sprintf("mcp__srv__tool_%04d", i), p, true, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	const room, per = 64 << 10, 50
	ring := pieceRing()
	var whole Registrations
	add(&whole, 0, (ring+2)*per+10)
	if err := whole.AddCommand("mcp", "MCP servers"); err != nil {
		t.Fatal(err)
	}
	if fresh := whole.Piece(ring, 10, nil); cap(fresh.buf) < 10 {
		t.Fatalf("a piece of registrations that do not stream has no room (%d)", cap(fresh.buf))
	}
	stopped := make(chan struct{})
	close(stopped)
	var reused, fresh bool
	got, _, err := registrationsOf(t, func(s *Session) error {
		var r Registrations
		r.StreamTo(s, 64<<10)
		pieces := make([]*Registrations, ring+2)
		mem := make([]*byte, len(pieces))
		for k := range ring {
			pieces[k] = r.Piece(k, room, nil)
			mem[k] = &pieces[k].buf[:1][0]
			add(pieces[k], k*per, (k+1)*per)
		}
		r.Append(pieces[0])
		// Waits for the writer to have written piece 0.
		k := ring
		taken, err := within(func() *Registrations { return r.Piece(k, room, nil) })
		if err != nil {
			return err
		}
		pieces[k] = taken
		reused = &taken.buf[:1][0] == mem[0]
		add(taken, k*per, (k+1)*per)
		// Piece 1 is not appended yet: stop gives a fresh buffer at once.
		k++
		if taken, err = within(func() *Registrations { return r.Piece(k, room, stopped) }); err != nil {
			return err
		}
		pieces[k] = taken
		fresh = &taken.buf[:1][0] != mem[1] && cap(taken.buf) >= room
		add(taken, k*per, (k+1)*per)
		for _, piece := range pieces[1:] {
			r.Append(piece)
		}
		add(&r, len(pieces)*per, len(pieces)*per+10)
		if err := r.AddCommand("mcp", "MCP servers"); err != nil {
			return err
		}
		return s.Register(&r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reused {
		t.Error("a piece was not built in the written buffer of the piece pieceRing() before it")
	}
	if !fresh {
		t.Error("a piece taken after stop closed was not given a fresh buffer")
	}
	want := strings.Split(strings.TrimSuffix(string(whole.Bytes()), "\n"), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%d frames through pieces differ from %d built whole", len(got), len(want))
	}
}

// within is take's piece, or an error when it waits past hangGuard.
func within(take func() *Registrations) (*Registrations, error) {
	c := make(chan *Registrations, 1)
	go func() { c <- take() }()
	select {
	case p := <-c:
		return p, nil
	case <-time.After(hangGuard):
		return nil, errors.New("Piece waited and never returned")
	}
}

// TestPieceBufferGoesToItsOwnPiece: the buffer piece 0 gives back is piece ring's alone.
// When pieces ring apart shared one hand-off, piece 2·ring, built first by a goroutine
// that got ahead, could take it, and piece ring then waited for a buffer that never came:
// the start hung. Piece 2·ring is asked for again and again with stop closed, so that
// were it offered the buffer, it would take it on one of those asks.
func TestPieceBufferGoesToItsOwnPiece(t *testing.T) {
	t.Parallel()
	ring := pieceRing()
	stopped := make(chan struct{})
	close(stopped)
	var stolen, reused bool
	_, _, err := registrationsOf(t, func(s *Session) error {
		var r Registrations
		r.StreamTo(s, 64<<10)
		first := r.Piece(0, 64, nil)
		mem := &first.buf[:1][0]
		first.giveBack()
		for range 64 {
			if p := r.Piece(2*ring, 64, stopped); &p.buf[:1][0] == mem {
				stolen = true
				break
			}
		}
		if !stolen {
			p := r.Piece(ring, 64, nil)
			reused = &p.buf[:1][0] == mem
		}
		return s.Register(&r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if stolen {
		t.Fatalf("piece %d took the buffer piece 0 hands to piece %d", 2*ring, ring)
	}
	if !reused {
		t.Fatalf("piece %d was not built in piece 0's buffer", ring)
	}
}
