package extension

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"

	gojson "github.com/goccy/go-json"
)

// ToolPayload is the part of a tool's register_tool frame that does not depend on the
// name it is registered under, how it is registered or the namespace it is filed under:
// its description, schema and output schema, encoded once. A handler that registers thousands of cached tools keeps
// these (in memory or on disk) and builds frames from them with Registrations.AddPayload
// without encoding the tools again. It is opaque outside this package.
type ToolPayload []byte

// framePrefix starts every register_tool frame; the name follows it.
const framePrefix = `{"type":"register_tool","name":`

// EncodeToolPayload encodes t's description, schema and output schema (t's Name,
// Deferred, Interactive and Namespace are not part of a payload). Schemas are treated as
// AppendToolFrame treats them.
func EncodeToolPayload(t Tool) ToolPayload {
	return ToolPayload(AppendToolPayload(nil, t))
}

// AppendToolPayload appends t's payload (EncodeToolPayload) to dst: many payloads encode
// into one buffer grown once.
func AppendToolPayload(dst []byte, t Tool) []byte {
	t.Deferred, t.Interactive, t.Namespace = false, false, Namespace{}
	return appendToolMembers(dst, t, false)
}

// AppendCompactToolPayload is AppendToolPayload for a tool whose schemas the caller has
// checked to be each empty or valid JSON that compacting gives back unchanged (a cached
// tool its reader compacted: cache.Listing.ReadCompact): they are copied as they are
// rather than checked and compacted again, which gives the same bytes. A schema that is
// not so goes into the payload as it is.
func AppendCompactToolPayload(dst []byte, t Tool) []byte {
	t.Deferred, t.Interactive, t.Namespace = false, false, Namespace{}
	return appendToolMembers(dst, t, true)
}

// Valid reports whether p has the shape EncodeToolPayload gives: JSON object members that
// start with a quoted key, on one line. It is a cheap check for a payload read back from
// storage (whether the members are valid JSON is the storage's checksum's job).
func (p ToolPayload) Valid() bool {
	return len(p) >= 2 && p[0] == '"' && p[len(p)-1] != ',' && p[len(p)-1] != '\\' && bytes.IndexByte(p, '\n') < 0
}

// payloadFields is what a payload holds.
type payloadFields struct {
	Description  string          `json:"description"`
	Schema       json.RawMessage `json:"schema"`
	OutputSchema json.RawMessage `json:"output_schema"`
}

// Decode returns the description, schema and output schema p was encoded from. The
// description comes back whole (Description with DescriptionSuffix after it, as the host
// reads it); the Tool's other fields are zero.
func (p ToolPayload) Decode() (Tool, error) {
	var f payloadFields
	if err := gojson.Unmarshal(p.object(), &f); err != nil {
		return Tool{}, fmt.Errorf("extension: tool payload is not valid: %w", err)
	}
	return Tool{Description: f.Description, Schema: f.Schema, OutputSchema: f.OutputSchema}, nil
}

// HasOutputSchema reports whether p carries an output schema.
func (p ToolPayload) HasOutputSchema() bool {
	return bytes.Contains(p, []byte(`"output_schema":`))
}

// WithoutOutputSchema returns p without its output schema, for hosts that do not take
// one; p itself when it has none or cannot be decoded.
func (p ToolPayload) WithoutOutputSchema() ToolPayload {
	if !p.HasOutputSchema() {
		return p
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(p.object(), &m) != nil {
		return p
	}
	delete(m, "output_schema")
	out, err := json.Marshal(m)
	if err != nil || len(out) < 2 {
		return p
	}
	return ToolPayload(out[1 : len(out)-1])
}

// object is p as the JSON object it is the members of.
func (p ToolPayload) object() []byte {
	obj := make([]byte, 0, len(p)+2)
	return append(append(append(obj, '{'), p...), '}')
}

// Registrations collects register_tool and register_command frames in one buffer, so that
// Session.Register hands them to the writer at once and they reach the host in one
// write: the startup path for thousands of cached tools, where a hand-off per frame costs
// more than the bytes. Bytes gives the encoded frames for a handler that stores them and
// replays them in a later process with Session.RegisterEncoded. The zero value is empty
// and ready to use.
type Registrations struct {
	buf []byte
	n   int // frames in buf

	// Set by StreamTo: the session that takes every chunk bytes of frames as they are
	// added, and the error of handing one over.
	to    *Session
	chunk int
	err   error
	// hands, set by StreamTo, are where the writer gives back the buffers of the pieces
	// appended to r (Piece); slot is where a piece's buffer goes.
	hands *handOffs
	slot  chan []byte
}

// handOffs pass each written piece's buffer to the one piece that is built in it: the
// buffer of piece k goes to piece k+ring alone. One channel per receiving piece, made by
// whichever of its sender and receiver asks first: a channel shared by pieces ring apart
// let a later piece take the buffer an earlier one was waiting for, and the earlier one
// then waited for good. Safe for use by several goroutines.
type handOffs struct {
	ring int
	mu   sync.Mutex
	to   map[int]chan []byte // by the receiving piece
}

// of is the channel of piece k's buffer; a receiver that took its buffer forgets it.
func (h *handOffs) of(k int) chan []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.to[k]
	if c == nil {
		c = make(chan []byte, 1)
		h.to[k] = c
	}
	return c
}

// forget drops piece k's channel once k has its buffer.
func (h *handOffs) forget(k int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.to, k)
}

// pieceRing is how many buffers the pieces of a streaming Registrations take turns with
// (Piece): twice the goroutines that may build pieces at once, so that they seldom wait
// for the writer while it keeps up.
func pieceRing() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// StreamTo makes r hand its frames to s whenever chunk bytes of them are added, in order
// and before the frames added later (Session.Register sends the rest), so that the
// writer sends the first frames while the rest are built. Bytes then holds only the
// frames not handed over yet.
func (r *Registrations) StreamTo(s *Session, chunk int) {
	r.to, r.chunk = s, chunk
	r.hands = &handOffs{ring: pieceRing(), to: map[int]chan []byte{}}
}

// Piece is the k-th (from 0) of the pieces of frames built apart (on other goroutines)
// and added to r with Append in order, empty with room for n bytes. When r streams
// (StreamTo), piece k is built in the buffer of piece k-pieceRing() once the writer has
// written that, and waits for it meanwhile, unless stop closes or the writer ends first
// (it then gets a fresh buffer): the frames of a large set take the memory of a few
// pieces rather than of all, which with the collector held off during a start would be
// fresh memory (a page fault a page) for every piece while the writer falls behind. A
// piece waits only for the one buffer meant for it, from a piece before it, so pieces
// built on several goroutines never wait on each other in a circle, provided each piece
// is appended (or stop closes) once those before it are. Pieces may be taken on several
// goroutines at once, in any order, while r is appended to. The wait has no context of
// its own: stop and the writer's end are what end a start, and both release it.
func (r *Registrations) Piece(k, n int, stop <-chan struct{}) *Registrations {
	p := &Registrations{}
	if h := r.hands; h != nil {
		p.slot = h.of(k + h.ring)
		if k >= h.ring {
			select {
			case b := <-h.of(k):
				p.buf = b[:0]
				h.forget(k)
			case <-stop:
			case <-r.to.w.dead:
			case <-r.to.w.done:
			}
		}
	}
	p.Grow(n)
	return p
}

// giveBack hands the piece's buffer to the piece that takes it after this one (Piece),
// for when it does not go to the writer, which would give it back once written.
func (r *Registrations) giveBack() {
	if r.slot != nil {
		select {
		case r.slot <- r.buf[:0]:
		default:
		}
	}
	r.buf, r.n = nil, 0
}

// handOver gives the frames in r to the session StreamTo named once they reach its chunk
// size. The rest of r's buffer is left for the frames to come: the writer reads only the
// bytes handed over.
func (r *Registrations) handOver() {
	if r.to == nil || len(r.buf) < r.chunk || r.err != nil {
		return
	}
	b := r.buf
	r.buf, r.n = b[len(b):len(b):cap(b)], 0
	// The writer ends a batch with '\n'.
	if !r.to.w.send(outFrame{b: b[:len(b)-1], batch: true}) {
		r.err = ErrClosed
	}
}

// Grow makes room for n more bytes of frames.
func (r *Registrations) Grow(n int) {
	if n > 0 && cap(r.buf)-len(r.buf) < n {
		buf := make([]byte, len(r.buf), len(r.buf)+n)
		copy(buf, r.buf)
		r.buf = buf
	}
}

// PayloadFrameSize is an upper bound of the bytes AddPayload adds for a name of n bytes
// that needs no escaping and payload p, for sizing Grow.
func PayloadFrameSize(n int, p ToolPayload) int {
	return len(framePrefix) + n + 2 + 1 + len(p) + len(`,"deferred":true,"interactive":true}`) + 1
}

// AddTool adds a register_tool frame for t, checked as toolFrame checks it.
func (r *Registrations) AddTool(t Tool) error {
	frame, err := toolFrame(t)
	if err != nil {
		return err
	}
	r.add(frame)
	return nil
}

// NamespaceFields is a Namespace encoded once as the members of a register_tool frame
// (EncodeNamespace), for AddPayloadIn to append to the frame of each of its tools. Its
// length is what it adds to each frame.
type NamespaceFields []byte

// EncodeNamespace encodes ns's non-empty fields as AppendToolFrame does; nothing for the
// zero Namespace.
func EncodeNamespace(ns Namespace) NamespaceFields {
	return NamespaceFields(appendNamespace(nil, ns))
}

// AddPayload adds the register_tool frame for a tool registered as name, whose
// description and schemas are p (see EncodeToolPayload), deferred and interactive as
// given: the frame AppendToolFrame encodes for the whole tool, except that the flags
// follow the output schema. It fails, adding nothing, for an empty name, a payload of the wrong shape or a
// frame too long for one line.
func (r *Registrations) AddPayload(name string, p ToolPayload, deferred, interactive bool) error {
	return r.AddPayloadIn(name, p, nil, deferred, interactive)
}

// AddPayloadIn is AddPayload for a tool filed under a namespace (ns: EncodeNamespace; nil
// for none), whose members follow the flags as in AppendToolFrame.
func (r *Registrations) AddPayloadIn(name string, p ToolPayload, ns NamespaceFields, deferred, interactive bool) error {
	if name == "" {
		return errors.New("extension: tool without name")
	}
	if !p.Valid() {
		return fmt.Errorf("extension: tool %s: payload is not a run of JSON members", name)
	}
	start := len(r.buf)
	r.buf = append(r.buf, framePrefix...)
	r.buf = appendJSONString(r.buf, name)
	r.buf = append(r.buf, ',')
	r.buf = append(r.buf, p...)
	return r.endFrame(name, start, deferred, interactive, ns)
}

// AddMadeIn is AddPayloadIn for a payload that made appends to the frame as it is built
// (a payload of AppendToolPayload's or AppendCompactToolPayload's, nothing else), so that
// it is encoded once into the frame rather than into a buffer of its own and copied; it
// is checked as Valid checks a payload but for the newlines, which those never write.
func (r *Registrations) AddMadeIn(name string, made func(dst []byte) []byte, ns NamespaceFields, deferred, interactive bool) error {
	if name == "" {
		return errors.New("extension: tool without name")
	}
	start := len(r.buf)
	r.buf = append(r.buf, framePrefix...)
	r.buf = appendJSONString(r.buf, name)
	r.buf = append(r.buf, ',')
	at := len(r.buf)
	r.buf = made(r.buf)
	if p := ToolPayload(r.buf[at:]); len(p) < 2 || p[0] != '"' || p[len(p)-1] == ',' || p[len(p)-1] == '\\' {
		r.buf = r.buf[:start]
		return fmt.Errorf("extension: tool %s: payload is not a run of JSON members", name)
	}
	return r.endFrame(name, start, deferred, interactive, ns)
}

// endFrame appends the flags and the namespace to the frame started at start, whose
// payload was just added, and ends it (or takes it back when it is too long).
func (r *Registrations) endFrame(name string, start int, deferred, interactive bool, ns NamespaceFields) error {
	if deferred {
		r.buf = append(r.buf, `,"deferred":true`...)
	}
	if interactive {
		r.buf = append(r.buf, `,"interactive":true`...)
	}
	r.buf = append(r.buf, ns...)
	r.buf = append(r.buf, '}')
	if len(r.buf)-start > maxFrame {
		n := len(r.buf) - start
		r.buf = r.buf[:start]
		return &FrameTooLargeError{Tool: name, Size: n, Limit: maxFrame}
	}
	r.buf = append(r.buf, '\n')
	r.n++
	r.handOver()
	return nil
}

// FrameTooLargeError is a register_tool frame that would not fit in one of the host's
// lines: the tool cannot be registered.
type FrameTooLargeError struct {
	Tool        string // the name it was to be registered under
	Size, Limit int    // the frame's bytes and the most a frame may have
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("extension: tool %s: register_tool frame is %d bytes, the limit is %d", e.Tool, e.Size, e.Limit)
}

// AddCommand adds a register_command frame for the slash command name (without the
// slash), checked as Session.RegisterCommand checks it.
func (r *Registrations) AddCommand(name, description string) error {
	frame, err := commandFrameFor(name, description)
	if err != nil {
		return err
	}
	r.add(frame)
	return nil
}

// add appends one checked frame and its newline.
func (r *Registrations) add(frame []byte) {
	r.buf = append(append(r.buf, frame...), '\n')
	r.n++
	r.handOver()
}

// Append adds o's frames after r's, so that frames built apart (on another goroutine)
// go out in order. When r streams (StreamTo), r's frames so far and then o's buffer are
// handed over as they are, without a copy. o must not be used afterwards.
func (r *Registrations) Append(o *Registrations) {
	if o.err != nil && r.err == nil {
		r.err = o.err
	}
	if o.n == 0 {
		o.giveBack()
		return
	}
	if r.to == nil {
		r.buf = append(r.buf, o.buf...)
		r.n += o.n
		o.giveBack()
		return
	}
	if r.n > 0 {
		chunk := r.chunk
		r.chunk = 0
		r.handOver()
		r.chunk = chunk
	}
	if r.err != nil {
		o.giveBack()
		return
	}
	// The writer ends a batch with '\n', and gives the buffer back once written.
	if !r.to.w.send(outFrame{b: o.buf[:len(o.buf)-1], batch: true, spare: o.slot}) {
		r.err = ErrClosed
		o.giveBack()
		return
	}
	o.buf, o.n = nil, 0
}

// Len is the number of frames in r: added, and not handed over (StreamTo).
func (r *Registrations) Len() int { return r.n }

// Bytes returns the encoded frames, each followed by '\n'. The slice aliases r's buffer.
func (r *Registrations) Bytes() []byte { return r.buf }

// Register queues every frame of r so that they are written together, in order. The
// session takes r's buffer over: r must not be used afterwards.
func (s *Session) Register(r *Registrations) error {
	if r.err != nil {
		return r.err
	}
	if r.n == 0 {
		return nil
	}
	b := r.buf
	r.buf, r.n = nil, 0
	// The writer ends a batch with '\n'.
	if !s.w.send(outFrame{b: b[:len(b)-1], batch: true}) {
		return ErrClosed
	}
	return nil
}

// RegisterEncoded queues frames that Registrations.Bytes gave, in this or an earlier
// process (a handler's startup file), so that they are written together. They are
// checked for what a host needs to read them and nothing more: each line is a
// register_tool or register_command object shorter than the line limit, and the last
// line ends in '\n'. Frames that fail the check are not sent at all, so a handler can
// fall back to building them again. The session takes frames over: the caller must not
// touch the slice afterwards.
func (s *Session) RegisterEncoded(frames []byte) error {
	if err := checkEncoded(frames); err != nil {
		return err
	}
	if len(frames) == 0 {
		return nil
	}
	if !s.w.send(outFrame{b: frames[:len(frames)-1], batch: true}) {
		return ErrClosed
	}
	return nil
}

// checkEncoded is RegisterEncoded's check. It looks at each line's start and length only,
// so it costs one scan for newlines.
func checkEncoded(frames []byte) error {
	if len(frames) > 0 && frames[len(frames)-1] != '\n' {
		return errors.New("extension: encoded registrations do not end with a newline")
	}
	for rest := frames; len(rest) > 0; {
		end := bytes.IndexByte(rest, '\n')
		line := rest[:end]
		rest = rest[end+1:]
		switch {
		case len(line) > maxFrame:
			return fmt.Errorf("extension: encoded registration is %d bytes, the limit is %d: %s", len(line), maxFrame, prefix(line, 80))
		case len(line) < 2 || line[len(line)-1] != '}' ||
			!bytes.HasPrefix(line, []byte(framePrefix)) && !bytes.HasPrefix(line, []byte(`{"type":"register_command","name":`)):
			return fmt.Errorf("extension: encoded registration is not a register_tool or register_command frame: %s", prefix(line, 80))
		}
	}
	return nil
}
