package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// DefaultMaxReply bounds one line (one JSON-RPC message) read from a stdio server.
// mcp-go reads lines without a limit, so a server that answers with hundreds of MB
// would otherwise take that much memory (several times over while decoding).
const DefaultMaxReply = 64 << 20

// MaxReplyEnv names the variable that sets the reply cap in MiB (Options.MaxReplyBytes
// wins when set).
const MaxReplyEnv = "MCP_BRIDGE_MAX_REPLY_MB"

// MaxReplyFrom reads MaxReplyEnv; 0 (the default) when unset or not a positive number of
// MiB up to 4096.
func MaxReplyFrom(lookup func(string) (string, bool)) (int, error) {
	v, ok := lookup(MaxReplyEnv)
	if !ok || strings.TrimSpace(v) == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 || n > 4096 {
		return 0, fmt.Errorf("%s must be a whole number of MiB between 1 and 4096; using %d", MaxReplyEnv, DefaultMaxReply>>20)
	}
	return n << 20, nil
}

// headKeep is how much of each message is kept to find its JSON-RPC id once the message
// turns out to be too long; most servers write "jsonrpc" and "id" before the result.
// tailKeep is how much of its end is kept for servers that write the id last.
const (
	headKeep = 512
	tailKeep = 256
)

// Framing says where one message ends in a stream that a ReplyLimiter reads.
type Framing int

// The framings.
const (
	// FrameLines: one message per line (newline-delimited JSON, as stdio servers write).
	FrameLines Framing = iota
	// FrameEvents: one message per server-sent event, which ends at an empty line (the
	// event streams of streamable HTTP and of the legacy SSE transport).
	FrameEvents
	// FrameBody: the whole stream is one message (an HTTP response body).
	FrameBody
)

// LimitOptions configure a ReplyLimiter.
type LimitOptions struct {
	// Limit bounds one message in bytes (0: DefaultMaxReply).
	Limit   int
	Framing Framing
	// ID is the id of the request whose answer the stream carries (the event stream
	// answering an HTTP POST): an over-size message that names no id of its own fails that
	// request. nil: none.
	ID json.RawMessage
	// Dropped is told of a message that was dropped so that it can be logged: an
	// over-size one that fails no request (a server request or notification; the stream
	// goes on), as a *TooLargeError (Dropped) that names the message's method when it was
	// found, or a reply that named another id (OneAnswer), as a *ForeignReplyError. nil:
	// nobody is told.
	// A reply whose id was found neither in it nor from ID ends the stream (Lost) on every
	// transport: its caller would otherwise wait for an answer that never comes.
	Dropped func(error)
	// Unreadable is told of every line within the cap that mcp-go's decoder rejects
	// (FrameLines only), which mcp-go drops without a word: its error is an
	// *UnreadableError. A reply whose id was found is followed by a JSON-RPC error for
	// that id, which mcp-go reads in its place, so its call fails at once. nil: nobody is
	// told.
	Unreadable func(error)
	// RepliesUnread: the stream's reader hands no reply to its caller (streamable HTTP's
	// GET stream, which mcp-go reads for server requests and notifications only), so an
	// over-size reply ends the stream (Lost) whatever its id: the error put in its place
	// would reach nobody, and its caller would wait until its timeout.
	RepliesUnread bool
	// OneAnswer: the stream carries the answer to the request whose id is ID and no other
	// reply (the body or event stream answering an HTTP POST), and its reader takes the
	// first reply it reads as that answer whatever its id (mcp-go's streamable HTTP
	// transport). A reply that names another id is not handed on: it is dropped
	// (Dropped is told of a *ForeignReplyError) and an event stream goes on; a body fails
	// with that error. An over-size message that its start does not show to be the
	// server's own request or notification fails the request at once, and so does one
	// that was dropped but goes on past skipAnswerMax times the limit: the reply in its
	// place is the answer, and the stream ends there. Ignored when ID is nil.
	OneAnswer bool
	// Replaced is told when an over-size reply was dropped and a JSON-RPC error for its
	// id handed on in its place (the stdio session gives the reply's memory back then).
	// nil: nobody is told.
	Replaced func()
}

// skipAnswerMax bounds, in multiples of the limit, how much of a dropped over-size
// message a stream that carries one answer discards before it gives the answer up: a
// message that never ends would otherwise be read until the request's timeout.
const skipAnswerMax = 16

// ReplyLimiter sits between a server's stream and mcp-go's reader. Messages up to the
// limit pass through untouched. A longer one is cut where it crosses the limit and the
// rest of it is discarded as it arrives, so memory stays bounded whatever the server
// sends. In its place mcp-go reads a JSON-RPC error for the same id (FrameLines,
// FrameEvents), so only that request fails and the stream stays usable; a body
// (FrameBody) fails with a *TooLargeError instead. A line within the cap that mcp-go's
// decoder rejects (FrameLines), which mcp-go would drop without a word, is handed on as
// it is and followed by a JSON-RPC error for its id (unreadable.go). It is used by one
// reader goroutine.
type ReplyLimiter struct {
	r     io.Reader
	limit int
	o     LimitOptions

	msg     int    // bytes of the current message handed on so far
	lineLen int    // bytes of the current line so far (FrameEvents: an empty line ends the message)
	head    []byte // start of the current message
	skip    bool   // discarding the rest of an over-size message
	carry   []byte // bytes read but not yet handed on
	out     []byte // bytes of our own to hand on first
	eof     bool   // end the stream after out
	err     error  // FrameBody: the error to return once out is empty

	// The skipped message, while what it is is still to be settled at its end (pending):
	// notReply, its start showed it is the server's own request or notification (it is
	// cut inside params or method); startID, the id its start named, the reply's only
	// when its end names no method (a server request may put its id first and its
	// method last); tail, its last bytes.
	pending  bool
	notReply bool
	startID  json.RawMessage
	tail     []byte

	// lineDone is set when the last Read handed on the end of a message: mcp-go has just
	// given it to the goroutine waiting for it, which should run before this one reads
	// the pipe again (that read usually finds it empty).
	lineDone bool
	// yield lets the taker run (runtime.Gosched); whether the runtime then runs it first
	// is the scheduler's choice, so tests see this step, not its outcome.
	yield func()

	// check follows the line being handed on (FrameLines) for what mcp-go's decoder
	// rejects; badTail is that line's last bytes once it is faulted (unreadable.go).
	check   jsonscan.Scanner
	badTail []byte

	lostOnce sync.Once
	lost     chan struct{} // closed when the stream was ended because of an over-size message

	// lineBlank: the current line holds nothing but carriage returns so far (an SSE
	// reader strips them from a line's end, so such a line ends an event).
	lineBlank bool

	// OneAnswer: the current message's top-level members, and what the current line of
	// an event is (its first bytes until they show whether it is a data field, which an
	// SSE reader joins into the message).
	scan    idScanner
	field   [len("data:")]byte
	fieldN  int
	known   bool // the field name is known
	data    bool // ... and it is "data"
	skipped int  // bytes of the over-size message discarded so far
	// refused is the last reply that named another id; answered, a reply that named the
	// request's id was handed on (the stream ends with it). A stream that ends with the
	// first and without the second answers the request with the first.
	refused  *ForeignReplyError
	answered bool
}

// NewReplyLimiter limits the messages read from r.
func NewReplyLimiter(r io.Reader, o LimitOptions) *ReplyLimiter {
	if o.Limit <= 0 {
		o.Limit = DefaultMaxReply
	}
	return &ReplyLimiter{r: r, limit: o.Limit, o: o, yield: runtime.Gosched, lost: make(chan struct{}),
		scan: idScanner{requests: o.Framing == FrameEvents}}
}

// Limit is the most bytes one message may have.
func (l *ReplyLimiter) Limit() int { return l.limit }

// Lost is closed when the stream was ended because an over-size reply could not be
// matched to a request; the stream then reads as ended (io.EOF).
func (l *ReplyLimiter) Lost() <-chan struct{} { return l.lost }

// Close closes the underlying reader when it is an io.Closer (an HTTP body).
func (l *ReplyLimiter) Close() error {
	if c, ok := l.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

func (l *ReplyLimiter) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if len(l.out) > 0 {
			n := copy(p, l.out)
			l.out = l.out[n:]
			return n, nil
		}
		if l.err != nil {
			return 0, l.err
		}
		if l.eof {
			return 0, io.EOF
		}
		buf := l.carry
		l.carry = nil
		if len(buf) == 0 {
			if l.lineDone {
				l.lineDone = false
				l.yield()
			}
			n, err := l.r.Read(p)
			if n == 0 && err == io.EOF && l.refused != nil && !l.answered && l.o.Framing == FrameEvents {
				// Without this the reader would say the stream ended without an answer.
				l.answerWith(l.refused.Error())
				continue
			}
			if n == 0 {
				if err == io.EOF && l.skip && l.pending {
					// A message cut off by the end of the stream has no end to read: its
					// last bytes may close a nested object whose id or method is not the
					// message's own. It is settled as if its end named nothing.
					l.tail = l.tail[:0]
					l.skipEnded()
					continue
				}
				return 0, err
			}
			buf = p[:n]
		}
		if l.skip {
			l.skipIn(buf)
			continue
		}
		seg := buf
		if l.o.Framing != FrameBody {
			if i := bytes.IndexByte(buf, '\n'); i >= 0 {
				seg = buf[:i+1]
			}
		}
		content := len(seg)
		if seg[len(seg)-1] == '\n' {
			content--
		}
		if l.msg+content > l.limit {
			l.overflow(seg, buf[len(seg):])
			continue
		}
		n := min(len(p), len(seg))
		if l.answers() && l.foreignIn(seg[:n]) {
			l.refuse(seg[:n], buf[n:])
			continue
		}
		copy(p, seg[:n])
		l.handed(seg[:n])
		l.keep(buf[n:])
		return n, nil
	}
}

// handed accounts for bytes handed on: b is a piece of one line.
func (l *ReplyLimiter) handed(b []byte) {
	l.keepHead(b)
	l.msg += len(b)
	lines := l.o.Framing == FrameLines
	if lines {
		l.scanLine(b)
	}
	if l.endsMessage(b) {
		if lines {
			l.lineEnded()
		}
		l.nextMessage()
		l.lineDone = true
		// The answer is handed on: its reader reads no further, and one more reply with
		// its id would have none to take it.
		l.eof = l.eof || l.answers() && l.answered
	}
}

// nextMessage starts the next message.
func (l *ReplyLimiter) nextMessage() {
	l.msg, l.head = 0, l.head[:0]
	l.scan.reset()
	l.fieldN, l.known, l.data = 0, false, false
}

// answers says whether the stream carries the answer to one request (OneAnswer).
func (l *ReplyLimiter) answers() bool { return l.o.OneAnswer && l.o.ID != nil }

// foreignIn feeds piece, the next bytes of the current message to be handed on (of one
// line at most), to the scanner of its top-level members (for an event stream only what
// its data fields hold) and says whether the message turned out, in piece, to be a reply
// that names another id than the request's.
func (l *ReplyLimiter) foreignIn(piece []byte) bool {
	if l.o.Framing != FrameEvents {
		return l.scan.foreign(piece, l.o.ID)
	}
	b := piece
	if !l.known {
		k := copy(l.field[l.fieldN:], b)
		l.fieldN += k
		b = b[k:]
		if l.fieldN == len(l.field) || piece[len(piece)-1] == '\n' {
			l.known, l.data = true, string(l.field[:l.fieldN]) == "data:"
		}
	}
	foreign := l.data && len(b) > 0 && l.scan.foreign(b, l.o.ID)
	l.answered = l.answered || l.scan.ours
	if piece[len(piece)-1] == '\n' {
		l.fieldN, l.known, l.data = 0, false, false
	}
	return foreign
}

// refuse drops the current message, a reply that names another id than the request's;
// piece, where it turned out to be one, is not handed on. A body fails; on a stream the
// reader is made to drop what it holds of the message, and the rest is discarded.
func (l *ReplyLimiter) refuse(piece, rest []byte) {
	err := &ForeignReplyError{ID: idText(l.scan.id), Want: idText(l.o.ID)}
	if l.o.Dropped != nil {
		l.o.Dropped(err)
	}
	l.refused = err
	if l.o.Framing == FrameBody {
		l.err = err
		return
	}
	if l.lineLen > 0 {
		l.out = append(l.out, '\n') // ends the line handed on in part
	}
	l.out = append(l.out, l.endEvent()...)
	l.skip = !l.endsMessage(piece)
	l.skipped = 0
	if !l.skip {
		l.nextMessage()
	}
	l.keep(rest)
}

// keepHead keeps b, a piece of the current message, while the kept start is short.
func (l *ReplyLimiter) keepHead(b []byte) {
	if len(l.head) < headKeep {
		l.head = append(l.head, b[:min(len(b), headKeep-len(l.head))]...)
	}
}

// endsMessage accounts for piece, a piece of one line of the current message, and says
// whether it ends the message: a line (FrameLines) or an event's empty line
// (FrameEvents); a body (FrameBody) ends only with the stream.
func (l *ReplyLimiter) endsMessage(piece []byte) bool {
	if l.lineLen == 0 {
		l.lineBlank = true
	}
	if l.lineBlank {
		l.lineBlank = len(bytes.TrimLeft(bytes.TrimSuffix(piece, []byte("\n")), "\r")) == 0
	}
	l.lineLen += len(piece)
	if piece[len(piece)-1] != '\n' || l.o.Framing == FrameBody {
		return false
	}
	end := l.o.Framing == FrameLines || l.emptyLine()
	l.lineLen = 0
	return end
}

// emptyLine says whether the line that just ended is empty: "\n", or carriage returns
// before it, which an SSE reader strips.
func (l *ReplyLimiter) emptyLine() bool { return l.lineBlank }

// skipIn discards buf, part of an over-size message, up to the message's end.
func (l *ReplyLimiter) skipIn(buf []byte) {
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		piece := buf
		if i >= 0 && l.o.Framing != FrameBody {
			piece = buf[:i+1]
		}
		buf = buf[len(piece):]
		if l.skipped += len(piece); l.answers() && l.skipped > skipAnswerMax*l.limit {
			l.skip, l.pending = false, false
			l.replace(nil, false)
			return
		}
		if l.pending {
			l.tail = keepTail(l.tail, piece)
		}
		if l.endsMessage(piece) {
			l.skipEnded()
			l.keep(buf)
			return
		}
	}
}

// skipEnded is the end of a discarded message: if its id was not in its start, it may be
// in its end.
func (l *ReplyLimiter) skipEnded() {
	l.skip, l.lineLen = false, 0
	l.nextMessage()
	if !l.pending {
		return
	}
	l.pending = false
	tail := l.tail
	if l.o.Framing == FrameEvents {
		tail = eventTail(tail)
	}
	l.replaceFromTail(tail, l.notReply, l.startID)
	l.tail, l.notReply, l.startID = l.tail[:0], false, nil
}

// replaceFromTail is replace for a message cut off by the limit, from what its end
// names: a method among its last members (the server's own request or notification,
// written with its params first), else the id its start named (startID, nil: none), else
// an id among its last members, else the request the stream answers.
// notReply: the message's start showed it is a request or notification, so it is
// dropped whether or not its method is found; it never fails a call of ours nor ends
// the stream. The method is looked for first: a server request written params first
// may end with its id, which is the server's and not one of ours.
func (l *ReplyLimiter) replaceFromTail(tail []byte, notReply bool, startID json.RawMessage) {
	if method, ok := jsonscan.TailMember(tail, `"method"`); ok || notReply {
		l.drop(methodName(method))
		return
	}
	id, ok := startID, startID != nil
	if !ok {
		id, ok = jsonscan.TailMember(tail, `"id"`)
		if ok && string(id) == "null" { // as at the start: a null id names no request
			ok = false
		}
	}
	if !ok && l.o.ID != nil {
		id, ok = l.o.ID, true
	}
	l.replace(id, ok)
}

// keep saves unread bytes; they may alias the caller's buffer, so they are copied.
func (l *ReplyLimiter) keep(b []byte) {
	if len(b) > 0 {
		l.carry = append([]byte(nil), b...)
	}
}

// overflow ends the current message for mcp-go (it fails to parse and is dropped) and
// puts a JSON-RPC error for the same id after it, or fails the body. seg, the piece that
// crossed the limit, is not handed on.
func (l *ReplyLimiter) overflow(seg, rest []byte) {
	if l.o.Framing == FrameBody {
		l.err = &TooLargeError{Limit: l.limit}
		return
	}
	// Over the cap, the message is the cap's to settle, whatever else is wrong with it.
	l.check.Reset()
	l.badTail = l.badTail[:0]
	l.keepHead(seg)
	head := l.head
	if l.o.Framing == FrameEvents {
		head = eventData(head)
	}
	m := jsonscan.ScanHead(head)
	// A message with params is the server's own request or notification even when its
	// method is not among the members read so far: no reply has params, nor a method
	// (the start may end inside a long one).
	notReply := m.Method != nil || m.Cut == "params" || m.Cut == "method"
	if l.o.Framing == FrameLines || l.lineLen > 0 {
		l.out = append(l.out[:0], '\n') // ends the cut-off line
	}
	// In an event stream the piece that crosses the limit may be the empty line that ends
	// the event (counted on top of its data): then nothing of the message is left to skip,
	// and skipping would swallow the next event. A piece that ends no line is followed by
	// the rest of its line.
	l.skip = !l.endsMessage(seg)
	l.skipped = 0
	switch {
	case m.Method != nil:
		l.drop(methodName(m.Method))
	case l.skip && l.answers() && !notReply:
		// No other reply can come on this stream, and the rest of this one may never
		// come: the request fails now.
		l.skip = false
		l.replace(nil, false)
	case l.skip:
		// An id at the start settles nothing yet: the end may name a method (a server
		// request written id first, method last), which must not be answered as ours.
		l.pending, l.tail = true, append(l.tail[:0], seg[max(0, len(seg)-tailKeep):]...)
		l.notReply, l.startID = notReply, m.ID
	default: // the message ended with seg, so its end is in seg if anywhere (an event's
		// data ended before its empty line: no id there, so the start's or the stream's)
		l.replaceFromTail(seg, notReply, m.ID)
	}
	if !l.skip {
		l.nextMessage()
	}
	l.keep(rest)
}

// drop skips the server's own request or notification, which fails nothing of ours: it
// is reported (Dropped), naming its method when known (""), and the stream goes on.
func (l *ReplyLimiter) drop(method string) {
	if l.o.Dropped != nil {
		l.o.Dropped(&TooLargeError{Limit: l.limit, Method: textcut.Truncate(method, maxMethodText), Dropped: true})
	}
	l.out = append(l.out, l.endEvent()...)
}

// replace hands on, in place of a dropped reply, a JSON-RPC error for id; without one
// (!ok) the stream ends: the reply's caller would otherwise wait for it. On a stream
// that carries one answer (OneAnswer) the error is that answer, for the request's id
// whatever id was found, and the stream ends after it.
func (l *ReplyLimiter) replace(id json.RawMessage, ok bool) {
	if l.answers() {
		id, ok = l.o.ID, true
		l.eof = true // the answer is given: nothing after it on the stream is read
	}
	if !ok || l.o.RepliesUnread {
		l.out = append(l.out, l.endEvent()...) // not a partial message at the stream's end
		l.eof = true
		l.lostOnce.Do(func() { close(l.lost) })
		return
	}
	l.appendError(id, tooLargeText(l.limit))
	if l.o.Replaced != nil {
		l.o.Replaced()
	}
}

// appendError hands on a JSON-RPC error for id that says text, after making the reader
// drop what it holds of a cut-off event.
func (l *ReplyLimiter) appendError(id json.RawMessage, text string) {
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32603, "message": text}})
	if l.o.Framing == FrameEvents {
		l.out = append(l.out, l.endEvent()...)
		l.out = append(append(append(l.out, "event: message\ndata: "...), msg...), "\n\n"...)
		return
	}
	l.out = append(append(l.out, msg...), '\n')
}

// endEvent makes mcp-go dispatch what it holds of a cut-off event under a type it ignores,
// rather than read it as a message. Its own data line makes sure the event is dispatched
// (and its type forgotten) even when nothing of the cut-off event had been handed on.
func (l *ReplyLimiter) endEvent() string {
	if l.o.Framing != FrameEvents {
		return ""
	}
	return "event: bridge-dropped\ndata: -\n\n"
}

// answerWith ends the stream with a JSON-RPC error for the request it answers that says
// text (OneAnswer).
func (l *ReplyLimiter) answerWith(text string) {
	if l.lineLen > 0 {
		l.out = append(l.out, '\n')
	}
	l.appendError(l.o.ID, text)
	l.eof = true
}

// tooLargeMarker is the words every text of the cap shares.
const tooLargeMarker = "larger than the bridge accepts"

// tooLargeText is the reason given for a dropped reply.
func tooLargeText(limit int) string {
	return "the server's reply was " + tooLargeMarker + " (" + capSize(limit) + ") and was dropped; ask for less, e.g. a narrower query or a page/limit argument, or raise the cap with " + MaxReplyEnv + " (MiB) in the environment zot starts from"
}

// droppedText is the reason given for a dropped server request or notification, which
// nobody asked for: it names the method when known ("") and never the content.
func droppedText(limit int, method string) string {
	what := "a request or notification from the server"
	if method != "" {
		what += " (method " + strconv.Quote(method) + ")"
	}
	return what + " was " + tooLargeMarker + " (" + capSize(limit) + ") and was dropped; no call failed. If the server's messages should get through, raise the cap with " + MaxReplyEnv + " (MiB) in the environment zot starts from"
}

// maxMethodText bounds a dropped message's method as reported (and logged): it is the
// server's text, of any length up to the kept start.
const maxMethodText = 128

// capSize is the reply cap as the texts give it.
func capSize(limit int) string {
	if limit%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", limit>>20)
	}
	return fmt.Sprintf("%d bytes", limit)
}

// methodName is a method member's value as text ("" when it is not a string).
func methodName(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// MessageID is the id named among the members at the start of a JSON-RPC message, a
// request or a reply; false when they name none.
func MessageID(head []byte) (json.RawMessage, bool) {
	m := jsonscan.ScanHead(head)
	return m.ID, m.ID != nil
}

// eventData is the data of an event's start: the values of its "data:" fields, joined by
// newlines as an SSE reader joins them (the last one may be cut off).
// eventTail is the data of an event's last bytes: the event's other fields (an id, a
// retry) may follow its data, and the data may be split over lines. The first line is
// the end of one cut off by the kept window; an over-size event's bulk is its data, so it
// is taken as data.
func eventTail(tail []byte) []byte {
	first, rest, _ := bytes.Cut(tail, []byte("\n"))
	first = bytes.TrimRight(first, "\r")
	if v, ok := bytes.CutPrefix(first, []byte("data:")); ok {
		first = bytes.TrimPrefix(v, []byte(" "))
	}
	out := append([]byte(nil), first...)
	if more := eventData(rest); len(more) > 0 {
		out = append(append(out, '\n'), more...)
	}
	return out
}

func eventData(head []byte) []byte {
	var out []byte
	first := true
	for line := range bytes.Lines(head) {
		v, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:"))
		if !ok {
			continue
		}
		if !first {
			out = append(out, '\n')
		}
		first = false
		out = append(out, bytes.TrimPrefix(v, []byte(" "))...)
	}
	return out
}
