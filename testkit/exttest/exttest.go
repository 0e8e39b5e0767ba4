// Package exttest is a fake zot host for tests. It drives an extension over
// a pair of in-process pipes (NewPipe, for extension.Run) or over a spawned
// process's stdin and stdout (StartProcess, for the real binary).
//
// A background goroutine reads every line the extension writes, checks that
// it is a well-formed frame shorter than the host's 4 MiB line cap (reporting
// violations with t.Errorf), and buffers it. Waiting methods take the first
// buffered frame that matches and leave every other frame buffered, so
// frames that arrive while a test waits for something else are never lost.
//
// Methods that return an error never stop the test themselves and are safe
// to call from any goroutine. ExpectHello and Handshake fail the test with
// t.Fatalf and must be called from the test's goroutine. Every wait takes a
// context; use a generous deadline as a hang guard, not as a measurement.
package exttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// MaxLine is the host's line cap: a line the extension writes, including its
// '\n', must be shorter than this.
const MaxLine = 4 << 20

// Frame is one line the extension wrote.
type Frame struct {
	// Seq is the line's position in the extension's output, from 0.
	Seq int
	// Type is the frame's "type".
	Type string
	// ID is the frame's "id" when it is a string, else "".
	ID string
	// Raw is the line without its newline.
	Raw json.RawMessage

	fields map[string]json.RawMessage
}

// Decode unmarshals the frame into v.
func (f Frame) Decode(v any) error {
	return json.Unmarshal(f.Raw, v)
}

// Field returns the raw value of the top-level key and whether it is present.
func (f Frame) Field(key string) (json.RawMessage, bool) {
	v, ok := f.fields[key]
	return v, ok
}

// Has reports whether the frame has the top-level key.
func (f Frame) Has(key string) bool {
	_, ok := f.fields[key]
	return ok
}

// Hello is the decoded hello frame.
type Hello struct {
	Name         string   `json:"name"`
	Version      string   `json:"version"`
	Capabilities []string `json:"capabilities"`
}

// Ack is the hello_ack the fake host sends. The zero value is a legacy (OLD
// or MID) host speaking protocol version 1.
type Ack struct {
	// ProtocolVersion defaults to 1 when zero.
	ProtocolVersion int
	// Capabilities nil leaves the key out (a legacy host); a non-nil empty
	// slice sends "capabilities":[]; NEW hosts send ["call_tool"].
	Capabilities []string
	// The remaining fields are sent as the hello_ack keys zot_version,
	// provider, model, cwd, extension_dir and data_dir.
	ZotVersion   string
	Provider     string
	Model        string
	Cwd          string
	ExtensionDir string
	DataDir      string
}

// Content is one content block of a tool result.
type Content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	MimeType string `json:"mime_type,omitempty"`
	Data     string `json:"data,omitempty"`
}

// ToolResult is a decoded tool_result frame.
type ToolResult struct {
	ID                string          `json:"id"`
	Content           []Content       `json:"content"`
	IsError           bool            `json:"is_error"`
	ActivateTools     []string        `json:"activate_tools"`
	StructuredContent json.RawMessage `json:"structured_content"`
	// Frame is the frame the result was decoded from.
	Frame Frame `json:"-"`
}

// Text joins the text of all text blocks with newlines.
func (r ToolResult) Text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Panel is the open_panel payload of a command response.
type Panel struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Lines  []string `json:"lines"`
	Footer string   `json:"footer"`
}

// CommandResponse is a decoded command_response frame.
type CommandResponse struct {
	ID        string `json:"id"`
	Action    string `json:"action"`
	Prompt    string `json:"prompt"`
	Insert    string `json:"insert"`
	Display   string `json:"display"`
	OpenPanel *Panel `json:"open_panel"`
	Error     string `json:"error"`
	// Frame is the frame the response was decoded from.
	Frame Frame `json:"-"`
}

// Notify is a decoded notify frame.
type Notify struct {
	Level   string `json:"level"`
	Message string `json:"message"`
	// Unwrapped is Message with every run of white space (the line breaks and indentation
	// an extension wraps a note with) made one space.
	Unwrapped string `json:"-"`
	// Frame is the frame the notify was decoded from.
	Frame Frame `json:"-"`
}

// Unwrap makes every run of white space in s one space: a display or note as the
// extension wrote it before it wrapped it to the screen's width.
func Unwrap(s string) string { return strings.Join(strings.Fields(s), " ") }

// Host is a fake zot host connected to one extension.
type Host struct {
	t testing.TB

	wmu   sync.Mutex // serialises writes to stdin
	stdin io.WriteCloser

	mu      sync.Mutex
	frames  []Frame       // unconsumed frames in arrival order
	nextSeq int           // Seq of the next line read
	changed chan struct{} // closed and replaced whenever frames or eof change
	eof     bool

	readerDone chan struct{} // closed when the reader goroutine returned

	cmd      *exec.Cmd     // nil for pipe hosts
	waitDone chan struct{} // closed once cmd.Wait returned
	waitErr  error
}

func newHost(t testing.TB, stdin io.WriteCloser, stdout io.Reader) *Host {
	h := &Host{
		t:          t,
		stdin:      stdin,
		changed:    make(chan struct{}),
		readerDone: make(chan struct{}),
	}
	go h.readLoop(stdout)
	return h
}

// NewPipe returns a Host and the two ends an in-process extension uses:
// pass extIn and extOut to extension.Run. extOut is an *io.PipeWriter;
// closing it is what a process exit would be (Wait returns). The pipes are
// closed when the test ends; the test should let Run return before that.
func NewPipe(t testing.TB) (h *Host, extIn io.Reader, extOut io.Writer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h = newHost(t, inW, outR)
	t.Cleanup(func() {
		_ = inW.Close()
		_ = outR.Close()
		<-h.readerDone
	})
	return h, inR, outW
}

// Serve runs an in-process extension behind a new Host: run gets the extension's ends of
// the pipes (typically a call of extension.Run) in its own goroutine. When the test ends
// the host asks for shutdown and run must return within guard, else the test fails.
func Serve(t testing.TB, guard time.Duration, run func(in io.Reader, out io.Writer) error) *Host {
	t.Helper()
	h, in, out := NewPipe(t)
	done := make(chan error, 1)
	go func() {
		done <- run(in, out)
		_ = out.(io.Closer).Close()
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		_ = h.Shutdown(ctx)
		select {
		case <-done:
		case <-ctx.Done():
			t.Error("the extension did not return after shutdown")
		}
	})
	return h
}

// StartProcess starts cmd with its stdin and stdout connected to a new Host.
// Unless cmd.Stderr is set, the child's stderr goes to t.Log line by line.
// When the test ends the process is killed (if still running) and waited
// for; call Shutdown and Wait first to test a graceful exit.
func StartProcess(t testing.TB, cmd *exec.Cmd) *Host {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("exttest: stdin pipe: %v", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatalf("exttest: stdout pipe: %v", err)
	}
	cmd.Stdout = pw
	var lw *logWriter
	if cmd.Stderr == nil {
		lw = &logWriter{t: t, prefix: filepath.Base(cmd.Path) + ": "}
		cmd.Stderr = lw
	}
	noTerminal(cmd)
	if cmd.WaitDelay == 0 {
		// Bounds Wait when a grandchild keeps stderr open.
		cmd.WaitDelay = 5 * time.Second
	}
	if err := cmd.Start(); err != nil {
		_ = pr.Close()
		_ = pw.Close()
		t.Fatalf("exttest: start %s: %v", cmd.Path, err)
	}
	_ = pw.Close()
	h := newHost(t, stdin, pr)
	h.cmd = cmd
	h.waitDone = make(chan struct{})
	go func() {
		h.waitErr = cmd.Wait()
		close(h.waitDone)
	}()
	t.Cleanup(func() {
		select {
		case <-h.waitDone:
		default:
			_ = cmd.Process.Kill()
			<-h.waitDone
		}
		_ = pr.Close() // unblocks the reader if a grandchild holds stdout
		<-h.readerDone
		if lw != nil {
			lw.stop()
		}
	})
	return h
}

// readLoop reads the extension's output until EOF or error.
func (h *Host) readLoop(r io.Reader) {
	defer close(h.readerDone)
	defer func() {
		h.mu.Lock()
		h.eof = true
		close(h.changed)
		h.changed = make(chan struct{})
		h.mu.Unlock()
	}()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, n, err := readLine(br)
		if n > 0 {
			h.add(line, n)
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line. It returns the line without its newline (nil if
// it is MaxLine or longer) and the line's full length including the newline.
func readLine(br *bufio.Reader) ([]byte, int, error) {
	var line []byte
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if n < MaxLine {
			line = append(line, chunk...)
		} else {
			line = nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte{'\n'}), n, err
	}
}

// add checks and buffers one line.
func (h *Host) add(line []byte, n int) {
	h.mu.Lock()
	seq := h.nextSeq
	h.nextSeq++
	h.mu.Unlock()
	if n >= MaxLine {
		h.t.Errorf("exttest: extension wrote line %d of %d bytes (the host's limit is < %d)", seq, n, MaxLine)
		return
	}
	f := Frame{Seq: seq, Raw: json.RawMessage(line)}
	if err := json.Unmarshal(line, &f.fields); err != nil {
		h.t.Errorf("exttest: extension wrote malformed line %d: %v: %.200s", seq, err, line)
		return
	}
	if err := json.Unmarshal(f.fields["type"], &f.Type); err != nil || f.Type == "" {
		h.t.Errorf("exttest: extension wrote line %d without a string type: %.200s", seq, line)
		return
	}
	if raw, ok := f.fields["id"]; ok {
		_ = json.Unmarshal(raw, &f.ID)
	}
	h.mu.Lock()
	h.frames = append(h.frames, f)
	close(h.changed)
	h.changed = make(chan struct{})
	h.mu.Unlock()
}

// Next waits for the first buffered frame for which match returns true,
// removes it from the buffer and returns it. It fails when ctx ends or the
// extension's output closes first.
func (h *Host) Next(ctx context.Context, match func(Frame) bool) (Frame, error) {
	return h.next(ctx, "matching frame", match)
}

// NextType waits for the first buffered frame of type typ.
func (h *Host) NextType(ctx context.Context, typ string) (Frame, error) {
	return h.next(ctx, typ, func(f Frame) bool { return f.Type == typ })
}

func (h *Host) next(ctx context.Context, what string, match func(Frame) bool) (Frame, error) {
	for {
		h.mu.Lock()
		for i, f := range h.frames {
			if match(f) {
				h.frames = append(h.frames[:i:i], h.frames[i+1:]...)
				h.mu.Unlock()
				return f, nil
			}
		}
		changed, eof := h.changed, h.eof
		pending := h.summaryLocked()
		h.mu.Unlock()
		if eof {
			return Frame{}, fmt.Errorf("exttest: extension output closed while waiting for %s (pending: %s)", what, pending)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Frame{}, fmt.Errorf("exttest: waiting for %s: %w (pending: %s)", what, ctx.Err(), pending)
		}
	}
}

// summaryLocked describes the buffered frames for error messages.
func (h *Host) summaryLocked() string {
	if len(h.frames) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, f := range h.frames {
		if i == 10 {
			fmt.Fprintf(&b, " ... %d more", len(h.frames)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Type)
		if f.ID != "" {
			b.WriteString("#" + f.ID)
		}
	}
	return b.String()
}

// Pending returns a copy of the buffered, not yet consumed frames in arrival
// order.
func (h *Host) Pending() []Frame {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Frame(nil), h.frames...)
}

// ExpectHello waits for the extension's first line and fails the test
// unless it is a hello frame with a non-empty name.
func (h *Host) ExpectHello(ctx context.Context) Hello {
	h.t.Helper()
	f, err := h.next(ctx, "hello", func(f Frame) bool { return f.Seq == 0 })
	if err != nil {
		h.t.Fatalf("exttest: %v", err)
	}
	if f.Type != "hello" {
		h.t.Fatalf("exttest: first line has type %q, want hello: %s", f.Type, f.Raw)
	}
	var hello Hello
	if err := f.Decode(&hello); err != nil {
		h.t.Fatalf("exttest: decode hello: %v", err)
	}
	if hello.Name == "" {
		h.t.Fatalf("exttest: hello without name: %s", f.Raw)
	}
	return hello
}

// ackWire is the wire form of Ack.
type ackWire struct {
	Type            string    `json:"type"`
	ProtocolVersion int       `json:"protocol_version"`
	Capabilities    *[]string `json:"capabilities,omitempty"`
	ZotVersion      string    `json:"zot_version"`
	Provider        string    `json:"provider"`
	Model           string    `json:"model"`
	Cwd             string    `json:"cwd"`
	ExtensionDir    string    `json:"extension_dir"`
	DataDir         string    `json:"data_dir"`
}

// SendAck sends ack as hello_ack without waiting for anything.
func (h *Host) SendAck(ack Ack) error {
	w := ackWire{
		Type:            "hello_ack",
		ProtocolVersion: ack.ProtocolVersion,
		ZotVersion:      ack.ZotVersion,
		Provider:        ack.Provider,
		Model:           ack.Model,
		Cwd:             ack.Cwd,
		ExtensionDir:    ack.ExtensionDir,
		DataDir:         ack.DataDir,
	}
	if w.ProtocolVersion == 0 {
		w.ProtocolVersion = 1
	}
	if ack.Capabilities != nil {
		caps := ack.Capabilities
		w.Capabilities = &caps
	}
	return h.Send(w)
}

// Handshake sends ack as hello_ack, waits for ready and returns the
// registration frames (register_tool, register_command, subscribe) that came
// before it, in order. Other frames stay buffered. Like zot, it then sends the
// session_start event if the extension subscribed to it. It fails the test on
// error.
func (h *Host) Handshake(ctx context.Context, ack Ack) []Frame {
	h.t.Helper()
	if err := h.SendAck(ack); err != nil {
		h.t.Fatalf("exttest: send hello_ack: %v", err)
	}
	ready, err := h.NextType(ctx, "ready")
	if err != nil {
		h.t.Fatalf("exttest: %v", err)
	}
	h.mu.Lock()
	var regs []Frame
	kept := h.frames[:0]
	for _, f := range h.frames {
		if f.Seq < ready.Seq && (strings.HasPrefix(f.Type, "register_") || f.Type == "subscribe") {
			regs = append(regs, f)
		} else {
			kept = append(kept, f)
		}
	}
	h.frames = kept
	h.mu.Unlock()
	for _, f := range regs {
		var sub struct {
			Events []string `json:"events"`
		}
		if f.Type == "subscribe" && f.Decode(&sub) == nil && slices.Contains(sub.Events, "session_start") {
			if err := h.Send(map[string]string{"type": "event", "event": "session_start"}); err != nil {
				h.t.Fatalf("exttest: send session_start: %v", err)
			}
			break
		}
	}
	return regs
}

// Send writes v as one JSON line to the extension's stdin. It blocks until
// the extension has read it (pipes) or the OS pipe accepted it.
func (h *Host) Send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("exttest: encode frame: %w", err)
	}
	return h.SendLine(b)
}

// SendLine writes line plus '\n' to the extension's stdin, unchecked (for
// malformed or over-long input).
func (h *Host) SendLine(line []byte) error {
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	h.wmu.Lock()
	defer h.wmu.Unlock()
	if _, err := h.stdin.Write(buf); err != nil {
		return fmt.Errorf("exttest: write to extension: %w", err)
	}
	return nil
}

// rawArgs turns CallTool's args into JSON: json.RawMessage and []byte are
// used as they are, nil becomes {}, anything else is marshalled.
func rawArgs(args any) (json.RawMessage, error) {
	switch a := args.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case json.RawMessage:
		return a, nil
	case []byte:
		return json.RawMessage(a), nil
	default:
		return json.Marshal(a)
	}
}

// SendToolCall sends a tool_call frame without waiting for the result.
// args is handled as in CallTool.
func (h *Host) SendToolCall(id, name string, args any) error {
	raw, err := rawArgs(args)
	if err != nil {
		return fmt.Errorf("exttest: encode args: %w", err)
	}
	return h.Send(struct {
		Type string          `json:"type"`
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	}{"tool_call", id, name, raw})
}

// WaitToolResult waits for the tool_result with the given id.
func (h *Host) WaitToolResult(ctx context.Context, id string) (ToolResult, error) {
	f, err := h.next(ctx, "tool_result#"+id, func(f Frame) bool { return f.Type == "tool_result" && f.ID == id })
	if err != nil {
		return ToolResult{}, err
	}
	var r ToolResult
	if err := f.Decode(&r); err != nil {
		return ToolResult{}, fmt.Errorf("exttest: decode tool_result: %w", err)
	}
	r.Frame = f
	return r, nil
}

// CallTool sends a tool_call and waits for its tool_result. args may be a
// json.RawMessage or []byte (sent as is), nil (sent as {}), or any value
// to marshal.
func (h *Host) CallTool(ctx context.Context, id, name string, args any) (ToolResult, error) {
	if err := h.SendToolCall(id, name, args); err != nil {
		return ToolResult{}, err
	}
	return h.WaitToolResult(ctx, id)
}

// Cancel sends tool_cancel for id.
func (h *Host) Cancel(id string) error {
	return h.Send(map[string]string{"type": "tool_cancel", "id": id})
}

// Command sends command_invoked (args omitted when empty) and waits for the
// command_response with the same id.
func (h *Host) Command(ctx context.Context, id, name, args string) (CommandResponse, error) {
	err := h.Send(struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Name string `json:"name"`
		Args string `json:"args,omitempty"`
	}{"command_invoked", id, name, args})
	if err != nil {
		return CommandResponse{}, err
	}
	f, err := h.next(ctx, "command_response#"+id, func(f Frame) bool { return f.Type == "command_response" && f.ID == id })
	if err != nil {
		return CommandResponse{}, err
	}
	var r CommandResponse
	if err := f.Decode(&r); err != nil {
		return CommandResponse{}, fmt.Errorf("exttest: decode command_response: %w", err)
	}
	r.Frame = f
	return r, nil
}

// WaitNotify waits for a notify frame whose message contains substr, however the message
// is wrapped: white space matches white space of any kind and length.
func (h *Host) WaitNotify(ctx context.Context, substr string) (Notify, error) {
	var n Notify
	want := Unwrap(substr)
	f, err := h.next(ctx, fmt.Sprintf("notify containing %q", substr), func(f Frame) bool {
		if f.Type != "notify" {
			return false
		}
		var m Notify
		return f.Decode(&m) == nil && strings.Contains(Unwrap(m.Message), want)
	})
	if err != nil {
		return n, err
	}
	if err := f.Decode(&n); err != nil {
		return n, fmt.Errorf("exttest: decode notify: %w", err)
	}
	n.Unwrapped = Unwrap(n.Message)
	n.Frame = f
	return n, nil
}

// Shutdown sends shutdown and waits for shutdown_ack.
func (h *Host) Shutdown(ctx context.Context) error {
	if err := h.Send(map[string]string{"type": "shutdown"}); err != nil {
		return err
	}
	_, err := h.NextType(ctx, "shutdown_ack")
	return err
}

// CloseStdin closes the extension's stdin (it sees EOF).
func (h *Host) CloseStdin() error {
	return h.stdin.Close()
}

// Wait waits for the extension to end. For a process it returns cmd.Wait's
// result once the process exited; for a pipe host it returns nil once the
// extension's output reached EOF (extOut was closed).
func (h *Host) Wait(ctx context.Context) error {
	if h.cmd != nil {
		select {
		case <-h.waitDone:
			return h.waitErr
		case <-ctx.Done():
			return fmt.Errorf("exttest: waiting for process exit: %w", ctx.Err())
		}
	}
	select {
	case <-h.readerDone:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("exttest: waiting for extension output to close: %w", ctx.Err())
	}
}

// logWriter forwards a child's stderr to t.Log, one line per call.
type logWriter struct {
	t      testing.TB
	prefix string
	mu     sync.Mutex
	buf    []byte
	done   bool
}

// Write logs every complete line in p and keeps the rest for later.
func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.t.Log(w.prefix + string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}

// stop logs any unterminated rest and discards later writes.
func (w *logWriter) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.t.Log(w.prefix + string(w.buf))
	}
	w.buf = nil
	w.done = true
}
