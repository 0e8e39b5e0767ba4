package extension

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
	"github.com/zot-mcp/mcp-bridge/internal/textwrap"
)

// Error is the type of the errors this package defines as constants.
type Error string

// Error implements the error interface.
func (e Error) Error() string { return string(e) }

const (
	// ErrClosed is returned by Session methods once the connection is
	// shutting down or gone; the frame was not queued.
	ErrClosed Error = "extension: connection closed"
	// ErrToolCancelled is the context.Cause of a CallTool context cancelled
	// by the host's tool_cancel frame.
	ErrToolCancelled Error = "extension: tool call cancelled by the host"
	// ErrShutdown is the context.Cause of handler contexts cancelled because
	// the connection ended (shutdown frame, stdin EOF or a write failure).
	ErrShutdown Error = "extension: connection shut down"
)

// CommandTimeout is the deadline of a RunCommand context: the host stops
// waiting for a command_response after this long.
const CommandTimeout = 30 * time.Second

// Fixed frames.
const (
	readyFrame       = `{"type":"ready"}`
	shutdownAckFrame = `{"type":"shutdown_ack"}`
	clearNotesFrame  = `{"type":"clear_notes"}`
)

// hooks lets the package's own tests observe internal ordering points
// deterministically. Run uses the zero value.
type hooks struct {
	// callQueued runs in the dispatcher when a tool call's goroutine is
	// started (before the next host line is dispatched).
	callQueued func(id string)
	// callStart runs in a tool call's goroutine before its context is
	// checked and the handler is invoked.
	callStart func(id string)
	// callDone runs after a tool call finished; sent reports whether its
	// tool_result frame was queued for writing.
	callDone func(id string, sent bool)
}

// Run speaks the protocol on in (the host's frames, normally os.Stdin) and
// out (normally os.Stdout) until the host sends shutdown, in reaches EOF, or
// ctx is done.
//
// It first writes hello, then requires the first line read to be hello_ack
// (anything else is an error), then calls h.Setup and writes ready once Setup
// returns. Meanwhile it keeps reading in, serving each tool_call and
// command_invoked in its own goroutine.
//
// On shutdown it writes shutdown_ack, cancels every in-flight handler
// context and returns nil once everything queued has been flushed. On EOF it
// does the same without the ack. When ctx is done it returns ctx.Err(). Other
// errors are a bad handshake or a failed read or write. Handlers still
// running when Run returns keep running until they notice their cancelled
// context; whatever they send afterwards is discarded. Run does not close in
// or out. When in is an *os.File on a pipe or socket, Run reads it through
// Go's poller (see pollable) and its read ends with Run; with any other
// reader, a goroutine blocked reading in stays blocked until in delivers
// data or fails.
func Run(ctx context.Context, in io.Reader, out io.Writer, h Handler, opts Options) error {
	return run(ctx, in, out, h, opts, hooks{})
}

// runner is the state of one Run.
type runner struct {
	h     Handler
	log   zerolog.Logger
	w     *writer
	sess  *Session
	hooks hooks

	connCtx    context.Context
	cancelConn context.CancelCauseFunc

	mu    sync.Mutex
	calls map[string]*inflight

	workers *workers // run the tool calls

	firstCall     chan struct{} // closed when the first tool call is dispatched
	firstCallOnce sync.Once
}

// inflight is one running tool call.
type inflight struct {
	cancel context.CancelCauseFunc
}

func run(ctx context.Context, in io.Reader, out io.Writer, h Handler, opts Options, hk hooks) error {
	if h == nil {
		return errors.New("extension: nil Handler")
	}
	log := opts.Log
	caps := opts.Capabilities
	if caps == nil {
		caps = DefaultCapabilities()
	}
	hello, err := marshalFrame(helloFrame{Type: "hello", Name: opts.Name, Version: opts.Version, Capabilities: caps})
	if err != nil {
		return fmt.Errorf("extension: encode hello: %w", err)
	}

	connCtx, cancelConn := context.WithCancelCause(ctx)
	defer cancelConn(ErrShutdown)
	r := &runner{
		h:          h,
		log:        log,
		w:          newWriter(log),
		hooks:      hk,
		connCtx:    connCtx,
		cancelConn: cancelConn,
		calls:      make(map[string]*inflight),
		workers:    newWorkers(connCtx.Done()),
		firstCall:  make(chan struct{}),
	}
	out, releaseOut := pollableOut(out)
	defer releaseOut()
	go r.w.loop(out)
	r.w.send(outFrame{b: hello})

	in, release := pollable(in)
	defer release()
	stop := make(chan struct{})
	defer close(stop)
	first := make(chan []byte, 1)
	handshook := make(chan struct{})
	end := make(chan readEnd, 1)
	go r.readLoop(newLineReader(in, nil), first, handshook, stop, end)

	// Handshake: the first line must be hello_ack.
	var line []byte
	select {
	case line = <-first:
	case e := <-end:
		r.finish(nil)
		if e.err != nil {
			return fmt.Errorf("extension: read hello_ack: %w", e.err)
		}
		return errors.New("extension: stdin closed before hello_ack")
	case <-ctx.Done():
		r.finish(nil)
		return ctx.Err()
	case <-r.w.dead:
		r.finish(nil)
		return fmt.Errorf("extension: write hello: %w", r.w.err)
	}
	info, notes, err := parseHelloAck(line)
	if err != nil {
		r.finish(nil)
		return err
	}
	for _, n := range notes {
		log.Warn().Msg(n)
	}
	log.Debug().Int("protocol_version", info.ProtocolVersion).Strs("capabilities", info.Capabilities).
		Stringer("generation", info.Generation()).Str("zot_version", info.ZotVersion).Msg("handshake done")
	r.sess = &Session{w: r.w, host: info, log: log, ready: make(chan struct{}), screen: opts.Screen, name: opts.Name}
	r.sess.notes.closed = opts.Screen != nil
	close(handshook)
	go r.setup()
	if opts.ServeProcs > 0 {
		defer serveProcs(opts.ServeProcs, r.sess.ready, r.firstCall)()
	}

	select {
	case e := <-end:
		if e.shutdown {
			if err := r.finish([]byte(shutdownAckFrame)); err != nil {
				return fmt.Errorf("extension: write shutdown_ack: %w", err)
			}
			log.Debug().Msg("shutdown acknowledged")
			return nil
		}
		r.finish(nil)
		if e.err != nil {
			return fmt.Errorf("extension: read stdin: %w", e.err)
		}
		log.Debug().Msg("stdin closed; stopping")
		return nil
	case <-ctx.Done():
		r.finish(nil)
		return ctx.Err()
	case <-r.w.dead:
		r.finish(nil)
		return fmt.Errorf("extension: write stdout: %w", r.w.err)
	}
}

// finish ends the connection: no more frames are accepted (final, if
// non-nil, is the last one written), every handler context is cancelled, and
// finish waits until the write loop has flushed and returned. It returns the
// write error, if any.
func (r *runner) finish(final []byte) error {
	if r.sess != nil {
		// Notes still held go out while the host may still be reading (a headless host
		// prints them).
		r.sess.notes.open(r.w, r.log, "the connection's end")
	}
	r.w.close(final)
	r.cancelConn(ErrShutdown)
	<-r.w.done
	select {
	case <-r.w.dead:
		return r.w.err
	default:
		return nil
	}
}

// serveProcs sets GOMAXPROCS to n once ready and firstCall are both closed; the
// returned func puts the previous value back (or cancels the change if it was not made).
func serveProcs(n int, ready, firstCall <-chan struct{}) (restore func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, c := range []<-chan struct{}{ready, firstCall} {
			select {
			case <-c:
			case <-quit:
				return
			}
		}
		prev := runtime.GOMAXPROCS(n)
		<-quit
		runtime.GOMAXPROCS(prev)
	}()
	return func() {
		close(quit)
		<-done
	}
}

// readEnd is why the reader stopped: a shutdown frame, a read error, or (neither) EOF.
type readEnd struct {
	shutdown bool
	err      error
}

// readLoop is the only code that reads in. It hands the first line to the handshake and,
// once handshook is closed, dispatches every later line itself: a tool call reaches its
// goroutine straight from the read, with no hand-off between reading and dispatching.
// dispatch never blocks for long, so reading goes on at once. It reports on end when it
// stops (shutdown, EOF or a read error) and returns without dispatching once stop is
// closed.
func (r *runner) readLoop(lr *lineReader, first chan<- []byte, handshook, stop <-chan struct{}, end chan<- readEnd) {
	started := false
	lr.onTooLong = func(n int, head []byte) {
		r.log.Error().Int("bytes", n).Int("max", MaxLine).Msg("discarding over-long line from host")
		// Nothing before hello_ack can be answered.
		if started && !closed(stop) {
			r.answerOverLong(overLong{n: n, head: head})
		}
	}
	for {
		l, err := lr.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			end <- readEnd{err: err}
			return
		}
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if closed(stop) {
			return
		}
		if !started {
			first <- l
			select {
			case <-handshook:
				started = true
				continue
			case <-stop:
				return
			}
		}
		if r.dispatch(l) {
			end <- readEnd{shutdown: true}
			return
		}
		if lr.br.Buffered() == 0 {
			// The call just handed to a worker runs before this goroutine reads stdin
			// again, a read that usually finds the pipe empty.
			runtime.Gosched()
		}
	}
}

// closed reports whether c is closed.
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// helloAckFrame is the wire form of hello_ack. Each field is read on its own
// (parseHelloAck), so that one of an unexpected type (protocol_version "1") costs
// that field, not the connection.
type helloAckFrame struct {
	Type            json.RawMessage `json:"type"`
	ProtocolVersion json.RawMessage `json:"protocol_version"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ZotVersion      json.RawMessage `json:"zot_version"`
	Provider        json.RawMessage `json:"provider"`
	Model           json.RawMessage `json:"model"`
	Cwd             json.RawMessage `json:"cwd"`
	ExtensionDir    json.RawMessage `json:"extension_dir"`
	DataDir         json.RawMessage `json:"data_dir"`
}

// parseHelloAck decodes the host's first line, forgivingly: only a line that is no
// JSON object or whose type is not hello_ack is an error. A field of an unexpected type
// is left empty and said in notes (for the log); protocol_version may be a number or
// a string holding one. A capabilities key that is absent or null leaves
// CapabilitiesPresent false; any other value sets it, and the string elements of an
// array become Capabilities.
func parseHelloAck(line []byte) (info HostInfo, notes []string, err error) {
	var f helloAckFrame
	if err := json.Unmarshal(line, &f); err != nil {
		return HostInfo{}, nil, fmt.Errorf("extension: first host frame is not valid hello_ack JSON: %w (%s)", err, prefix(line, 80))
	}
	var typ string
	if json.Unmarshal(f.Type, &typ) != nil || typ != "hello_ack" {
		return HostInfo{}, nil, fmt.Errorf("extension: first host frame has type %s, want hello_ack", prefix(bytes.TrimSpace(f.Type), 80))
	}
	str := func(key string, raw json.RawMessage) string {
		var s string
		if absent(raw) {
			return ""
		}
		if json.Unmarshal(raw, &s) != nil {
			notes = append(notes, fmt.Sprintf("hello_ack.%s is %s, not a string; ignored", key, prefix(bytes.TrimSpace(raw), 40)))
		}
		return s
	}
	info = HostInfo{
		ZotVersion:   str("zot_version", f.ZotVersion),
		Provider:     str("provider", f.Provider),
		Model:        str("model", f.Model),
		Cwd:          str("cwd", f.Cwd),
		ExtensionDir: str("extension_dir", f.ExtensionDir),
		DataDir:      str("data_dir", f.DataDir),
	}
	if v, ok := protocolVersion(f.ProtocolVersion); ok {
		info.ProtocolVersion = v
	} else {
		notes = append(notes, fmt.Sprintf("hello_ack.protocol_version is %s, not a number; going on as with every known host (protocol 1)", prefix(bytes.TrimSpace(f.ProtocolVersion), 40)))
	}
	raw := bytes.TrimSpace(f.Capabilities)
	if !absent(raw) {
		info.CapabilitiesPresent = true
		info.Capabilities = []string{}
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) == nil {
			for _, it := range items {
				var s string
				if json.Unmarshal(it, &s) == nil {
					info.Capabilities = append(info.Capabilities, s)
				}
			}
		}
	}
	return info, notes, nil
}

// absent reports whether a field's raw value is missing or null.
func absent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// protocolVersion reads hello_ack.protocol_version: a whole number, or a string that
// holds one ("1"); absent or null is 0. ok is false for anything else.
func protocolVersion(raw json.RawMessage) (v int, ok bool) {
	if absent(raw) {
		return 0, true
	}
	text := string(bytes.TrimSpace(raw))
	if text[0] == '"' {
		if json.Unmarshal(raw, &text) != nil {
			return 0, false
		}
		text = strings.TrimSpace(text)
	}
	if n, err := strconv.Atoi(text); err == nil {
		return n, true
	}
	// A number written as 1.0 or 1e0 is still the whole number 1.
	if fl, err := strconv.ParseFloat(text, 64); err == nil && fl == math.Trunc(fl) && math.Abs(fl) < 1<<31 {
		return int(fl), true
	}
	return 0, false
}

// setup runs the handler's Setup and then queues ready.
func (r *runner) setup() {
	if err := r.safeSetup(); err != nil {
		r.log.Error().Err(err).Msg("extension setup failed; sending ready anyway")
	}
	sc := r.sess.screen
	if sc != nil {
		r.w.send(outFrame{b: []byte(sessionStartFrame)})
	}
	r.w.send(outFrame{b: []byte(readyFrame), flushed: r.sess.ready})
	if sc != nil {
		r.sess.notes.after(sc.clock(), uiFallback, r.w, r.log, "ready, without session_start")
	}
}

func (r *runner) safeSetup() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("setup panicked: %v", p)
			r.log.Error().Str("stack", string(debug.Stack())).Msg("setup panicked")
		}
	}()
	return r.h.Setup(r.connCtx, r.sess)
}

// Host frames as far as dispatch needs them.
type (
	typeOnly struct {
		Type string `json:"type"`
	}
	idOnly struct {
		ID string `json:"id"`
	}
	eventOnly struct {
		Event string `json:"event"`
	}
	// toolCallFrame is tool_call and command_invoked.
	toolCallFrame struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	}
	interceptResponseFrame struct {
		Type  string `json:"type"`
		ID    string `json:"id"`
		Block bool   `json:"block"`
	}
)

// dispatch handles one host line. It never blocks for long: handlers run in
// their own goroutines. It returns true for shutdown.
func (r *runner) dispatch(line []byte) (shutdown bool) {
	f, ok := r.parseFrame(line)
	if !ok {
		return false
	}
	switch f.Type {
	case "tool_call":
		if f.ID == "" {
			r.log.Warn().Str("name", f.Name).Msg("ignoring tool_call without id")
			return false
		}
		r.uiUp("tool_call")
		r.startTool(ToolCall{ID: f.ID, Name: f.Name, Args: jsonscan.Args(f.Args)})
	case "command_invoked":
		if f.ID == "" {
			r.log.Warn().Str("name", f.Name).Msg("ignoring command_invoked without id")
			return false
		}
		cmd := Command{ID: f.ID, Name: f.Name}
		if len(f.Args) > 0 && json.Unmarshal(f.Args, &cmd.Args) != nil {
			cmd.Args = string(f.Args)
		}
		r.uiUp("command_invoked")
		go r.serveCommand(cmd)
	case "tool_cancel":
		r.mu.Lock()
		c := r.calls[f.ID]
		r.mu.Unlock()
		if c == nil {
			r.log.Debug().Str("id", f.ID).Msg("tool_cancel for unknown or finished call")
			return false
		}
		c.cancel(ErrToolCancelled)
	case "event_intercept":
		if f.ID == "" {
			r.log.Warn().Msg("ignoring event_intercept without id")
			return false
		}
		b, err := marshalFrame(interceptResponseFrame{Type: "event_intercept_response", ID: f.ID})
		if err == nil {
			r.w.send(outFrame{b: b})
		}
	case "shutdown":
		return true
	case "event":
		if sc := r.sess.screen; sc != nil && f.Event == "session_start" {
			r.sess.notes.after(sc.clock(), uiSettle, r.w, r.log, "session_start")
			return false
		}
		r.log.Debug().Str("type", f.Type).Str("event", f.Event).Msg("ignoring host frame")
	case "panel_key", "panel_close", "panel_resize", "tool_result":
		// Not used: panels are never opened with key handling, and this package
		// issues no call_tool.
		r.log.Debug().Str("type", f.Type).Msg("ignoring host frame")
	case "":
		r.log.Warn().Str("line", prefix(line, 200)).Msg("ignoring host frame without type")
	default:
		r.log.Warn().Str("type", f.Type).Msg("ignoring host frame of unknown type")
	}
	return false
}

// hostFrame is a host frame as far as dispatch needs it, whatever its type.
type hostFrame struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Args  json.RawMessage `json:"args"`
	Event string          `json:"event"`
}

// parseFrame decodes line in one pass (goccy/go-json: this is on every call's path).
// A frame that does not fit hostFrame, say an event whose id is a number, is decoded
// again field set by field set as its type needs, so a field the type does not use
// cannot cost it. Failures are logged.
func (r *runner) parseFrame(line []byte) (hostFrame, bool) {
	var f hostFrame
	if gojson.Unmarshal(line, &f) == nil {
		return f, true
	}
	f = hostFrame{}
	var t typeOnly
	if err := json.Unmarshal(line, &t); err != nil {
		r.log.Warn().Err(err).Str("line", prefix(line, 200)).Msg("ignoring malformed frame from host")
		// A request whose frame no decoder reads still has a readable start.
		r.answerUndecodable(line)
		return f, false
	}
	f.Type = t.Type
	switch t.Type {
	case "tool_call", "command_invoked":
		var c toolCallFrame
		if !r.decode(line, &c, t.Type) {
			return f, false
		}
		f.ID, f.Name, f.Args = c.ID, c.Name, c.Args
	case "tool_cancel", "event_intercept":
		var c idOnly
		if !r.decode(line, &c, t.Type) {
			return f, false
		}
		f.ID = c.ID
	case "event":
		var c eventOnly
		if !r.decode(line, &c, t.Type) {
			return f, false
		}
		f.Event = c.Event
	}
	return f, true
}

// decode unmarshals a frame whose type is already known, logging failures.
func (r *runner) decode(line []byte, v any, typ string) bool {
	if err := json.Unmarshal(line, v); err != nil {
		r.log.Warn().Err(err).Str("type", typ).Str("line", prefix(line, 200)).Msg("ignoring undecodable frame from host")
		return false
	}
	return true
}

// startTool registers the call (so a tool_cancel read right after it finds
// it) and serves it on a goroutine of its own.
func (r *runner) startTool(call ToolCall) {
	ctx, cancel := context.WithCancelCause(r.connCtx)
	c := &inflight{cancel: cancel}
	r.mu.Lock()
	_, dup := r.calls[call.ID]
	if !dup {
		r.calls[call.ID] = c
	}
	r.mu.Unlock()
	if dup {
		// Two calls under one id could not be told apart by a result or a tool_cancel;
		// the running one keeps the id.
		cancel(nil)
		r.log.Warn().Str("id", call.ID).Str("tool", call.Name).Msg("rejecting a tool_call whose id is still in flight")
		b, err := encodeToolResult(call.ID, ToolResult{IsError: true, Content: []Content{{Type: "text",
			Text: fmt.Sprintf("tool call %s was not run: a call with id %q is still running, and ids must be unique among running calls.", call.Name, call.ID)}}},
			r.sess.host.Generation())
		if err == nil {
			r.w.send(outFrame{b: b})
		}
		return
	}
	if r.hooks.callQueued != nil {
		r.hooks.callQueued(call.ID)
	}
	r.firstCallOnce.Do(func() { close(r.firstCall) })
	r.workers.run(func() { r.serveTool(ctx, c, call) })
}

// serveTool runs one tool call and queues its result unless the host
// cancelled it.
func (r *runner) serveTool(ctx context.Context, c *inflight, call ToolCall) {
	if r.hooks.callStart != nil {
		r.hooks.callStart(call.ID)
	}
	sent := false
	var res ToolResult
	ran := ctx.Err() == nil
	if ran {
		res = r.safeCallTool(ctx, call)
	}
	// The id is free again before its result is out, so a host that reuses it right
	// after the result is not refused.
	r.mu.Lock()
	if r.calls[call.ID] == c {
		delete(r.calls, call.ID)
	}
	r.mu.Unlock()
	cancelled := errors.Is(context.Cause(ctx), ErrToolCancelled)
	// The call's context ends before its result is queued: queuing wakes the writer,
	// and the worker should wait for its next call right after, not finish this one.
	c.cancel(nil)
	switch {
	case !ran:
	case cancelled:
		r.log.Debug().Str("id", call.ID).Str("tool", call.Name).Msg("dropping result of cancelled tool call")
	default:
		sent = r.w.sendToolResult(call.ID, res, r.sess.host.Generation())
	}
	if r.hooks.callDone != nil {
		r.hooks.callDone(call.ID, sent)
	}
}

func (r *runner) safeCallTool(ctx context.Context, call ToolCall) (res ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error().Str("tool", call.Name).Str("stack", string(debug.Stack())).Msgf("tool handler panicked: %v", p)
			res = ToolResult{Content: []Content{{Type: "text", Text: fmt.Sprintf("internal error in tool %s: %v", call.Name, p)}}, IsError: true}
		}
	}()
	return r.h.CallTool(ctx, call)
}

// serveCommand runs one command and queues its response. With a Screen, the answer is
// laid out for it, and a display answer is followed by a redraw (see Screen).
func (r *runner) serveCommand(cmd Command) {
	ctx, cancel := context.WithTimeout(r.connCtx, CommandTimeout)
	defer cancel()
	sc := r.sess.screen
	if sc != nil {
		// The host tags a display answer with the command's name; the extension's is
		// counted as well, in case a host tags it so.
		cmd.Width = sc.textWidth(cmd.Name, r.sess.name)
	}
	resp := r.safeRunCommand(ctx, cmd)
	display := resp.Action == "display" && resp.Display != ""
	if sc != nil && display {
		resp.Display = textwrap.Wrap(resp.Display, cmd.Width)
	}
	b, err := encodeCommandResponse(cmd.ID, resp)
	if err != nil {
		r.log.Error().Err(err).Str("command", cmd.Name).Msg("cannot encode command response")
		b, _ = encodeCommandResponse(cmd.ID, CommandResponse{Error: "extension could not encode the response: " + err.Error()})
	}
	r.w.send(outFrame{b: b})
	if sc != nil && display {
		r.w.send(outFrame{b: []byte(redrawFrame)})
		// The host adds the answer on another goroutine than the one that reads the
		// redraw; the second redraw covers the answer added after the first.
		sc.clock().AfterFunc(redrawAgain, func() { r.w.send(outFrame{b: []byte(redrawFrame)}) })
	}
}

// uiUp opens the notes: a tool call or a command (frame) comes from a host whose UI is up.
func (r *runner) uiUp(frame string) {
	if r.sess.screen != nil {
		r.sess.notes.open(r.w, r.log, frame)
	}
}

func (r *runner) safeRunCommand(ctx context.Context, cmd Command) (resp CommandResponse) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error().Str("command", cmd.Name).Str("stack", string(debug.Stack())).Msgf("command handler panicked: %v", p)
			resp = CommandResponse{Error: fmt.Sprintf("internal error in /%s: %v", cmd.Name, p)}
		}
	}()
	return r.h.RunCommand(ctx, cmd)
}
