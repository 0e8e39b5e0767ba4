package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// The small messages the fuzzed message is sent between: both fit the least cap the
// fuzzer picks (fuzzMinLimit), framed either way.
const (
	fuzzPrev     = `{"jsonrpc":"2.0","id":-1,"result":{"prev":true}}`
	fuzzNext     = `{"jsonrpc":"2.0","id":0,"result":{"next":true}}`
	fuzzMinLimit = 64
)

// FuzzReplyLimiter checks the limiter against what a message truly is, decoded with a
// real JSON decoder, whatever its members' order and content. ctl picks the framing, the
// cap, the options, the pipe's read sizes and, when msg is empty, drives a generator of
// JSON-RPC messages; a non-empty msg is used as the message itself (the table tests'
// shapes seed it). The message is sent between two small replies. The oracle:
//   - a message within the cap arrives intact;
//   - an over-size request or notification (a top-level method) is dropped: no error for
//     any id, Dropped told once (naming its method or nothing), the stream goes on and
//     the next reply arrives;
//   - an over-size reply with top-level id X is replaced by an error for exactly X, or
//     ends the stream (Lost), never an error for another id nor a silent drop;
//   - the limiter's own buffers stay within constants whatever the message's size.
func FuzzReplyLimiter(f *testing.F) {
	fill := strings.Repeat("x", 500)
	cutStart := `{"jsonrpc":"2.0","_meta":{"note":"`
	seeds := []string{
		`{"jsonrpc":"2.0","id":7,"result":{"text":"` + fill + `"}}`,
		`{"result":{"text":"` + fill + `"},"id":7,"jsonrpc":"2.0"}`,
		`{"result":{"text":"` + fill + `"},"jsonrpc":"2.0","id":"call-4"}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + fill + `"}}`,
		`{"jsonrpc":"2.0","params":{"data":"` + fill + `"},"method":"notifications/message"}`,
		`{"jsonrpc":"2.0","id":8,"method":"sampling/createMessage","params":{"t":"` + fill + `"}}`,
		`{"params":{"data":"` + fill + `"},"method":"notifications/message","jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","params":{"data":"` + fill + `"},"method":"notifications/message","_meta":{"n":"` + fill + `"}}`,
		`{"jsonrpc":"2.0","id":2,"params":{"t":"` + fill + `"},"method":"sampling/createMessage"}`,
		`{"params":{"t":"` + fill + `"},"method":"sampling/createMessage","id":2}`,
		`{"result":{"text":"` + fill + `"},"id":7,"jsonrpc":"2.0","n":-1.5e3}`,
		`{"result":{"text":"` + fill + `"},"id":7,"_meta":{"n":1}}`,
		`{"result":{"text":"` + fill + `"},"id":7,"tags":["a"],"jsonrpc":"2.0"}`,
		`{"params":{"t":"` + fill + `"},"method":"sampling/createMessage","id":2,"jsonrpc":"2.0"}`,
		cutStart + strings.Repeat("n", headKeep-len(cutStart)-len(`"},"id":42`)) + `"},"id":4242,"result":{"text":"` + fill + `"}}`,
		`{"error":{"code":1,"message":"` + fill + `"},"jsonrpc":"2.0","id":null}`,
		`{"jsonrpc":"2.0","_meta":{"pad":"` + fill + `"},"method":"notifications/message","x":"a\"b"}`,
		`{"jsonrpc":"2.0","_meta":{"pad":"` + fill + `"},"method":"sampling/createMessage","id":2}`,
		`{"jsonrpc":"2.0","method":"` + strings.Repeat("m", headKeep) + `","params":{"data":"` + fill + `"},"x":{}}`,
		"{\"result\":\"" + fill + "\",\"id\":7,\n\"jsonrpc\":\"2.0\"}",
		`{"result":{"s":"a\\\\\"id\":9,\\\\"},"id":"q\\\"\\\\","jsonrpc":"2.0"}`,
	}
	// ctl: framing, cap (two bytes), options, read sizes; the rest drives the generator.
	for _, s := range seeds {
		f.Add([]byte{0, 0, 0, 0, 1, 7}, s)
		f.Add([]byte{1, 0, 0, 0, 2, 0, 40}, s)
		f.Add([]byte{1, 1, 200, 5, 1, 3}, s)
	}
	for _, ctl := range []string{"\x00\x00\x00\x00\x01\x07", "\x01\x00\x00\x02\x01\x03",
		"\x00\x00\x10\x00\x01\x00abcdefghijklmnop", "\x01\x00\x30\x00\x02\x01\x05qrstuvwxyz0123456789",
		"\x00\x00\x00\x00\x01\x07\x02\x00\x05\x03\x01\x04\x01\x05\x09\x02\x06\x05\x03\x05\xff\x20"} {
		f.Add([]byte(ctl), "")
	}
	f.Fuzz(func(t *testing.T, ctl []byte, msg string) {
		g := &fuzzGen{b: ctl}
		events := g.next()%2 == 1
		limit := fuzzMinLimit + g.intn(700)
		opts := g.next()
		o := LimitOptions{Limit: limit}
		crlf, eventLines, multiline := false, "", false
		if events {
			o.Framing = FrameEvents
			o.RepliesUnread = opts&7 == 7
			crlf = opts&8 != 0
			multiline = opts&16 != 0
			switch opts >> 5 & 3 {
			case 1:
				eventLines = "event: message\n"
			case 2:
				eventLines = "id: 3\nevent: message\n"
			}
		}
		streamID := opts&0x80 != 0 // the stream answers a request (a POST's event stream)
		var sizes []int
		for n := 1 + g.intn(4); n > 0; n-- {
			switch g.intn(4) {
			case 0:
				sizes = append(sizes, 1+g.intn(8))
			case 1:
				sizes = append(sizes, 4096)
			default:
				sizes = append(sizes, 1+g.intn(300))
			}
		}
		raw := msg != ""
		if !raw {
			msg = g.message(multiline)
			if !json.Valid([]byte(msg)) {
				t.Fatalf("the generator built invalid JSON: %q", msg)
			}
		}
		if strings.ContainsRune(msg, '\r') || (!events && strings.ContainsRune(msg, '\n')) {
			return // whitespace that is no JSON-RPC framing's
		}
		truth, ok := fuzzTruth(msg)
		if !ok {
			if !raw {
				t.Fatalf("the generator built a message that is no JSON-RPC message: %q", msg)
			}
			return
		}
		if streamID && !truth.isRequest {
			o.ID = json.RawMessage(`12`)
			if truth.id != nil {
				o.ID = truth.id // the reply the stream carries is its request's
			}
		}

		eol := "\n"
		if crlf {
			eol = "\r\n"
		}
		frame := func(lines, m string) string {
			if !events {
				return m + "\n"
			}
			return lines + "data: " + strings.ReplaceAll(m, "\n", eol+"data: ") + eol + eol
		}
		framed := frame(eventLines, msg)
		at := func(off int) int { // where msg[off] is in framed
			if !events {
				return off
			}
			return off + len(eventLines) + len("data: ") + strings.Count(msg[:off], "\n")*(len(eol)-1+len("data: "))
		}
		over := len(framed)-1 > limit

		var dropped []string
		o.Dropped = func(err error) {
			var big *TooLargeError
			if !errors.As(err, &big) || !big.Dropped {
				t.Fatalf("Dropped told of %v", err)
			}
			dropped = append(dropped, big.Method)
		}
		lim := NewReplyLimiter(&fuzzPipe{s: frame("", fuzzPrev) + framed + frame("", fuzzNext), sizes: sizes}, o)
		br := &boundedLimiter{t: t, l: lim, maxRead: 4096}
		var got []string
		if events {
			got = readEvents(t, br)
		} else {
			got = fuzzReadLines(t, bufio.NewReaderSize(br, 16+g.intn(2)*4080), limit)
		}
		lost := false
		select {
		case <-lim.Lost():
			lost = true
		default:
		}

		if len(got) == 0 || got[0] != fuzzPrev {
			t.Fatalf("the reply before the message did not arrive intact: got %q", got)
		}
		if !over {
			if lost || len(dropped) > 0 || !reflect.DeepEqual(got, []string{fuzzPrev, msg, fuzzNext}) {
				t.Fatalf("a message within the cap (%d of %d bytes) did not pass intact: lost %v, dropped %q, got %q",
					len(framed)-1, limit, lost, dropped, got)
			}
			return
		}
		if truth.isRequest {
			visible := truth.methodVisible(msg, limit, len(framed), at)
			if lost {
				if len(got) != 1 {
					t.Fatalf("read %q after the stream was lost", got[1:])
				}
				if visible {
					t.Fatalf("an over-size request or notification whose method is in plain sight ended the stream: %q", msg)
				}
				return
			}
			// Known gap: a request whose method is out of sight (between a long member and
			// a nested one, or across the seam between the kept start and the tail) and
			// whose id is in sight is taken for a reply to that id. Never for another id.
			if !visible && truth.id != nil && len(got) == 3 && got[2] == fuzzNext && len(dropped) == 0 {
				if err := tooLargeErrorFor(got[1], truth.id); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !reflect.DeepEqual(got, []string{fuzzPrev, fuzzNext}) {
				t.Fatalf("an over-size request or notification was not just dropped: got %q from %q", got, msg)
			}
			if len(dropped) != 1 || (dropped[0] != "" && dropped[0] != textcut.Truncate(truth.method, maxMethodText)) {
				t.Fatalf("Dropped told of methods %q, want one: %q or none named", dropped, truth.method)
			}
			return
		}
		if len(dropped) > 0 {
			t.Fatalf("an over-size reply was dropped silently (Dropped told of %q): %q", dropped, msg)
		}
		if lost {
			if len(got) != 1 {
				t.Fatalf("read %q after the stream was lost", got[1:])
			}
			return
		}
		want := truth.id
		if want == nil {
			want = o.ID
		}
		switch {
		case o.RepliesUnread:
			t.Fatalf("an over-size reply on a stream whose replies reach nobody did not end it: got %q", got)
		case want == nil:
			t.Fatalf("an over-size reply that names no id did not end the stream: got %q from %q", got, msg)
		case len(got) != 3 || got[2] != fuzzNext:
			t.Fatalf("an over-size reply was not replaced by one error: got %q from %q", got, msg)
		}
		if err := tooLargeErrorFor(got[1], want); err != nil {
			t.Fatalf("%v; message %q", err, msg)
		}
	})
}

// tooLargeErrorFor says what is wrong when msg is not the limiter's error for id.
func tooLargeErrorFor(msg string, id json.RawMessage) error {
	var e struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(msg), &e); err != nil || e.Error == nil || !strings.Contains(e.Error.Message, tooLargeMarker) {
		return fmt.Errorf("in place of an over-size message came %q (%v)", msg, err)
	}
	if !sameJSON(e.ID, id) {
		return fmt.Errorf("the error for an over-size message names id %s, want %s", e.ID, id)
	}
	return nil
}

// fuzzFacts is what a message truly is.
type fuzzFacts struct {
	isRequest bool            // it has a top-level method (a request or notification)
	method    string          // that method
	id        json.RawMessage // its top-level id, a reply's or a request's (nil: none, or null)
	members   []fuzzMember    // its top-level members, in order
}

// fuzzMember is where a top-level member sits in the message.
type fuzzMember struct {
	key              string
	before           int // the ',' or '{' before its key
	keyEnd, valueEnd int // just after its key's closing quote and after its value
	scalar           bool
}

// fuzzTruth decodes msg; false when it is no JSON-RPC message whose kind is plain: not an
// object, a top-level key twice, a method that is no string, or a reply with params.
func fuzzTruth(msg string) (fuzzFacts, bool) {
	var f fuzzFacts
	dec := json.NewDecoder(strings.NewReader(msg))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return f, false
	}
	seen := map[string]json.RawMessage{}
	for dec.More() {
		prevEnd := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return f, false
		}
		k := tok.(string)
		m := fuzzMember{key: k, keyEnd: int(dec.InputOffset())}
		m.before = prevEnd - 1 // the '{'
		if i := strings.IndexByte(msg[prevEnd:m.keyEnd], ','); i >= 0 {
			m.before = prevEnd + i
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return f, false
		}
		m.valueEnd = int(dec.InputOffset())
		m.scalar = v[0] != '{' && v[0] != '['
		if _, dup := seen[k]; dup {
			return f, false
		}
		seen[k] = v
		f.members = append(f.members, m)
	}
	if _, err := dec.Token(); err != nil {
		return f, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return f, false
	}
	if id, ok := seen["id"]; ok && string(id) != "null" {
		f.id = id
	}
	if m, ok := seen["method"]; ok {
		if json.Unmarshal(m, &f.method) != nil {
			return f, false
		}
		f.isRequest = true
		return f, true
	}
	if _, ok := seen["params"]; ok {
		return f, false
	}
	return f, true
}

// methodVisible says whether the limiter is bound to see that a message is a request or
// notification, whatever the read sizes: its method among the members wholly inside the
// least start it keeps, or its start cut inside its method or params, or its method
// among the scalar members that end it, inside the least tail it keeps. Elsewhere (say,
// between two long members) the message cannot be told from a reply without reading all
// of it, and ending the stream is the conservative outcome. at maps an offset in the
// message to one in its framing.
func (f fuzzFacts) methodVisible(msg string, limit, framedLen int, at func(int) int) bool {
	start := min(headKeep, limit+1) // a start shorter than this is never all that is kept
	for _, m := range f.members {
		switch {
		case m.key == "method" && at(m.keyEnd) <= start:
			return true
		case m.key == "params" && at(m.keyEnd) <= start && at(m.valueEnd) >= headKeep:
			return true
		}
		if at(m.valueEnd) >= start {
			break // the start ends inside this member
		}
	}
	for i, m := range f.members {
		if m.key != "method" {
			continue
		}
		// The tail starts where the read that crossed the cap started: at the cap at the
		// latest.
		if at(m.before) < limit || framedLen-at(m.before) > tailKeep || strings.Contains(msg[m.before:], "\n") {
			return false
		}
		for _, later := range f.members[i+1:] {
			if !later.scalar {
				return false
			}
		}
		return true
	}
	return false
}

// sameJSON says whether a and b are the same JSON value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// fuzzReadLines reads lines as mcp-go's stdio transport does and returns those that are
// JSON (the cut-off start of an over-size line is not, and is ignored as mcp-go ignores it).
func fuzzReadLines(t *testing.T, br *bufio.Reader, limit int) []string {
	var got []string
	for {
		line, err := br.ReadString('\n')
		l := strings.TrimSuffix(line, "\n")
		if json.Valid([]byte(l)) {
			got = append(got, l) // the oracle checks these, the limiter's own errors among them
		} else if len(l) > limit {
			t.Fatalf("a line of %d bytes got through a cap of %d", len(l), limit)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			return got
		}
	}
}

// fuzzPipe hands on s in reads of the given sizes, in turn.
type fuzzPipe struct {
	s     string
	sizes []int
	i     int
}

func (p *fuzzPipe) Read(b []byte) (int, error) {
	if len(p.s) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.s[:min(len(p.s), p.sizes[p.i%len(p.sizes)])])
	p.i++
	p.s = p.s[n:]
	return n, nil
}

// boundedLimiter reads from a limiter and checks after every read that what it holds is
// within constants, however long the message it is cutting.
type boundedLimiter struct {
	t       *testing.T
	l       *ReplyLimiter
	maxRead int
}

func (b *boundedLimiter) Read(p []byte) (int, error) {
	n, err := b.l.Read(p)
	l := b.l
	const maxOut = 1024 + 6*headKeep // an error reply naming an id of up to the kept start, escaped
	if len(l.head) > headKeep || cap(l.head) > 2*headKeep || len(l.tail) > tailKeep || cap(l.tail) > 4*tailKeep ||
		len(l.carry) > b.maxRead || len(l.out) > maxOut {
		b.t.Fatalf("the limiter holds head %d (cap %d), tail %d (cap %d), carry %d, out %d bytes",
			len(l.head), cap(l.head), len(l.tail), cap(l.tail), len(l.carry), len(l.out))
	}
	return n, err
}

// fuzzGen turns the fuzzer's bytes into choices (0 once they run out).
type fuzzGen struct{ b []byte }

func (g *fuzzGen) next() byte {
	if len(g.b) == 0 {
		return 0
	}
	c := g.b[0]
	g.b = g.b[1:]
	return c
}

// intn is a choice in [0, n), n up to 65536.
func (g *fuzzGen) intn(n int) int {
	if n <= 1 {
		return 0
	}
	if n <= 256 {
		return int(g.next()) % n
	}
	return (int(g.next())<<8 | int(g.next())) % n
}

func (g *fuzzGen) pick(s ...string) string { return s[g.intn(len(s))] }

func marshalText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// text is a string's content made of pieces that look like JSON-RPC from the inside:
// keys, quotes, runs of backslashes, brackets, unicode.
func (g *fuzzGen) text(parts int) string {
	var sb strings.Builder
	for n := g.intn(parts + 1); n > 0; n-- {
		switch g.intn(12) {
		case 0:
			sb.WriteString(`"id":` + g.pick("7", "2", `"call-4"`, "null", ""))
		case 1:
			sb.WriteString(`"method":"` + g.pick("notifications/message", "x", "") + `"`)
		case 2:
			sb.WriteString(`\"`)
		case 3:
			sb.WriteString(strings.Repeat(`\`, g.intn(10)))
			if g.intn(2) == 0 {
				sb.WriteByte('"')
			}
		case 4:
			sb.WriteString(g.pick("{", "}", "[", "]", ",", ":", `"}`, `"},`, `"}}`, `"]`))
		case 5:
			sb.WriteString(g.pick("é", "☃", "😀", "<", ">", "&", "\u2028", "\x00", "\t", "\n", "\xff", "\\u0022"))
		case 6:
			sb.WriteString(g.pick("null", "true", "false", "5", "-1.5e3", " "))
		case 7:
			sb.WriteString(`","id":` + g.pick("7", `"x"`) + `,"jsonrpc":"2.0"}`)
		case 8:
			sb.WriteString("data: ")
		default:
			sb.WriteString(g.pick("a", "text", "result", "params", "id", "method", "jsonrpc", "2.0"))
		}
	}
	return sb.String()
}

func (g *fuzzGen) number() string {
	switch g.intn(6) {
	case 0:
		return g.pick("0", "-0", "1.5e3", "12E-2", "-7.25", "12345678901234567890", "1e400")
	case 1:
		return strconv.Itoa(-g.intn(1 << 16))
	default:
		return strconv.Itoa(g.intn(1 << 16))
	}
}

// ws is whitespace between tokens; multiline lets it be a newline (an event's data lines).
func (g *fuzzGen) ws(multiline bool) string {
	if g.intn(4) != 0 {
		return ""
	}
	s := g.pick(" ", "\t", "  ", "\n", " \t ")
	if !multiline {
		s = strings.ReplaceAll(s, "\n", " ")
	}
	return s
}

// key is a member's key, now and then with a letter written as an escape.
func (g *fuzzGen) key(k string) string {
	if g.intn(16) != 0 || k == "" {
		return marshalText(k)
	}
	i := g.intn(len(k))
	return `"` + k[:i] + `\u00` + strconv.FormatInt(int64(k[i]), 16) + k[i+1:] + `"`
}

func (g *fuzzGen) object(members [][2]string, multiline bool) string {
	var sb strings.Builder
	sb.WriteString("{" + g.ws(multiline))
	for i, m := range members {
		if i > 0 {
			sb.WriteString("," + g.ws(multiline))
		}
		sb.WriteString(g.key(m[0]) + g.ws(multiline) + ":" + g.ws(multiline) + m[1] + g.ws(multiline))
	}
	return sb.String() + "}"
}

// value is any JSON value, nested objects holding their own id, method and the like.
func (g *fuzzGen) value(depth int, multiline bool) string {
	kind := g.intn(6)
	if depth >= 3 {
		kind = g.intn(3)
	}
	switch kind {
	case 0:
		return marshalText(g.text(6))
	case 1:
		return g.number()
	case 2:
		return g.pick("true", "false", "null")
	case 5:
		var items []string
		for n := g.intn(4); n > 0; n-- {
			items = append(items, g.value(depth+1, multiline))
		}
		return "[" + g.ws(multiline) + strings.Join(items, ","+g.ws(multiline)) + "]"
	}
	var members [][2]string
	for n := g.intn(4); n > 0; n-- {
		k := g.pick("id", "method", "jsonrpc", "params", "result", "text", "data", "")
		members = append(members, [2]string{k, g.value(depth+1, multiline)})
	}
	return g.object(members, multiline)
}

// message builds a JSON-RPC message: a notification, a server request or a reply (with
// or without an id), its members in any order, one of them padded.
func (g *fuzzGen) message(multiline bool) string {
	var members [][2]string
	add := func(k, v string) { members = append(members, [2]string{k, v}) }
	id := func() string {
		switch g.intn(4) {
		case 0:
			return g.number()
		case 1:
			return marshalText(g.text(8))
		case 2:
			return marshalText(strings.Repeat(g.pick("i", `\`, `"`, "é"), g.intn(700)) + g.text(3))
		}
		return strconv.Itoa(g.intn(100))
	}
	method := func() string {
		switch g.intn(4) {
		case 0:
			return marshalText(g.text(6))
		case 1:
			return marshalText(strings.Repeat("m", g.intn(700)))
		}
		return marshalText(g.pick("notifications/message", "sampling/createMessage", "notifications/progress"))
	}
	if g.intn(8) != 0 {
		add("jsonrpc", `"2.0"`)
	}
	switch g.intn(4) {
	case 0: // notification
		add("method", method())
		if g.intn(4) != 0 {
			add("params", g.value(0, multiline))
		}
	case 1: // server request
		add("method", method())
		add("id", id())
		if g.intn(4) != 0 {
			add("params", g.value(0, multiline))
		}
	default: // reply
		switch g.intn(6) {
		case 0:
		case 1:
			add("id", "null")
		default:
			add("id", id())
		}
		if g.intn(3) == 0 {
			add("error", g.object([][2]string{{"code", g.number()}, {"message", marshalText(g.text(4))}, {"data", g.value(1, multiline)}}, multiline))
		} else {
			add("result", g.value(0, multiline))
		}
	}
	for n := g.intn(3); n > 0; n-- {
		add(g.pick("_meta", "x", "n", "tags"), g.value(1, multiline))
	}
	// Pad one member that is no id or method (a new one when there is none) so that the
	// message is, most of the time, over the cap.
	var bodies []int
	for i, m := range members {
		if m[0] != "id" && m[0] != "method" && m[0] != "jsonrpc" {
			bodies = append(bodies, i)
		}
	}
	if len(bodies) == 0 {
		add("_pad", "null")
		bodies = append(bodies, len(members)-1)
	}
	if len(members) > 0 {
		i := bodies[g.intn(len(bodies))]
		pad := marshalText(strings.Repeat("x", g.intn(1<<14)) + g.text(3))
		v := members[i][1]
		switch g.intn(4) {
		case 0:
			members[i][1] = "[" + pad + "," + v + "]"
		case 1:
			members[i][1] = "[" + v + "," + g.ws(multiline) + pad + "]"
		case 2:
			members[i][1] = g.object([][2]string{{"text", pad}, {"v", v}}, multiline)
		default:
			members[i][1] = g.object([][2]string{{"v", v}, {"text", pad}}, multiline)
		}
	}
	// Drop the later of any keys added twice (extra members named like the others).
	var uniq [][2]string
	seen := map[string]bool{}
	for _, m := range members {
		if !seen[m[0]] {
			seen[m[0]] = true
			uniq = append(uniq, m)
		}
	}
	for i := len(uniq) - 1; i > 0; i-- {
		j := g.intn(i + 1)
		uniq[i], uniq[j] = uniq[j], uniq[i]
	}
	return g.object(uniq, multiline)
}
