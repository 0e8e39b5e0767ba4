package jsonscan

import (
	"bytes"
	"encoding/json"
	"iter"
	"unicode/utf8"
)

// Member is one top-level member of a JSON object, as it is written in the text.
type Member struct {
	// Key is the member's key with its quotes, escapes as written (Name decodes it).
	Key []byte
	// Value is the member's value as written, without the white space around it.
	Value []byte
	// At is the offset in the text of the key's opening quote, ValueAt that of the
	// value's first byte: text[At:ValueAt] is the key, the colon and the space between.
	At, ValueAt int
}

// End is the offset in the text just past the member's value.
func (m Member) End() int { return m.ValueAt + len(m.Value) }

// Name is the member's key, decoded. A key that cannot be decoded (an invalid escape)
// is returned as written between its quotes.
func (m Member) Name() string {
	if s, ok := Unquote(m.Key); ok {
		return s
	}
	return string(m.Key[1 : len(m.Key)-1])
}

// Is says whether the member's key is name; it decodes the key only when it holds an
// escape.
func (m Member) Is(name string) bool {
	k := m.Key[1 : len(m.Key)-1]
	if bytes.IndexByte(k, '\\') < 0 {
		return string(k) == name
	}
	return m.Name() == name
}

// Text is the member's value decoded when it is a JSON string; false when it is not one
// (or holds an invalid escape).
func (m Member) Text() (string, bool) { return Unquote(m.Value) }

// Unquote decodes the JSON string b (with its quotes) as encoding/json does (invalid
// UTF-8 becomes U+FFFD); false when b is not one.
func Unquote(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	inner := b[1 : len(b)-1]
	plain := true
	for _, c := range inner {
		if !plainInString[c] {
			plain = false
			break
		}
	}
	if plain && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(b, &s) != nil {
		return "", false
	}
	return s, true
}

// Object reads, one at a time and without decoding them, the top-level members of the
// JSON object a text starts with. The text may be cut off anywhere (the start of a line
// too long to keep): a member is returned only when it is whole, and CutKey names the one
// the text ends inside. Nested values are skipped by counting brackets outside strings;
// what is inside them is not checked, and reading stops at the first byte the member
// grammar does not allow. A caller that must know the text is valid JSON checks it first.
//
// It is the one member walker of the tree: schema normalising (cache), parameter
// extraction (search), the host frame head (extension) and the message head of the reply
// cap (session) read members through it.
type Object struct {
	src    []byte
	i      int
	state  objState
	object bool
	cut    []byte
	m      Member
}

type objState uint8

const (
	objStart   objState = iota // before the opening brace
	objFirst                   // after the opening brace
	objNext                    // after a member
	objClosed                  // the closing brace was read
	objStopped                 // the text ended or broke the grammar
)

// NewObject starts reading the members of the object src starts with (white space may
// come first).
func NewObject(src []byte) *Object { return &Object{src: src} }

// Next reads the next whole member; false when there is none: the object closed, the
// text ended, or it broke the grammar.
func (o *Object) Next() bool {
	src := o.src
	switch o.state {
	case objClosed, objStopped:
		return false
	case objStart:
		o.i = skipSpace(src, 0)
		if o.i >= len(src) || src[o.i] != '{' {
			o.state = objStopped
			return false
		}
		o.object = true
		o.i++
		o.state = objFirst
	}
	i := skipSpace(src, o.i)
	if i < len(src) && src[i] == '}' {
		o.i, o.state = i+1, objClosed
		return false
	}
	if o.state == objNext {
		if i >= len(src) || src[i] != ',' {
			return o.stop(nil)
		}
		i = skipSpace(src, i+1)
	}
	if i >= len(src) || src[i] != '"' {
		return o.stop(nil)
	}
	at := i
	keyEnd, ok := stringEnd(src, i)
	if !ok {
		return o.stop(nil)
	}
	key := src[at:keyEnd]
	i = skipSpace(src, keyEnd)
	if i >= len(src) {
		return o.stop(key)
	}
	if src[i] != ':' {
		return o.stop(nil)
	}
	i = skipSpace(src, i+1)
	if i >= len(src) {
		return o.stop(key)
	}
	valAt := i
	var end int
	switch src[i] {
	case '"':
		end, ok = stringEnd(src, i)
	case '{', '[':
		end, ok = bracketEnd(src, i)
	case ',', '}', ']', ':':
		return o.stop(nil)
	default:
		// A number or literal ends at the byte after it: one that reaches the text's end
		// may go on past it (4242 cut to 42).
		end = i
		for end < len(src) && !scalarStop[src[end]] {
			end++
		}
		ok = end < len(src)
	}
	if !ok {
		return o.stop(key)
	}
	o.m = Member{Key: key, Value: src[valAt:end], At: at, ValueAt: valAt}
	o.i, o.state = end, objNext
	return true
}

func (o *Object) stop(cut []byte) bool {
	o.state, o.cut = objStopped, cut
	return false
}

// Member is the member the last Next read.
func (o *Object) Member() Member { return o.m }

// All reads the remaining whole members.
func (o *Object) All() iter.Seq[Member] {
	return func(yield func(Member) bool) {
		for o.Next() {
			if !yield(o.m) {
				return
			}
		}
	}
}

// IsObject says whether the text starts with an object (known once Next was called).
func (o *Object) IsObject() bool { return o.object }

// Closed says whether the object's closing brace was read: every member was seen.
func (o *Object) Closed() bool { return o.state == objClosed }

// End is the offset in the text just past the closing brace, once Closed.
func (o *Object) End() int { return o.i }

// CutKey is the key (with its quotes, as written) of the member the text ends inside,
// once Next returned false; nil when it ended between members, inside a key, or did not
// end at all (the object closed, or the grammar broke).
func (o *Object) CutKey() []byte { return o.cut }

// scalarStop holds the bytes that end a number or literal.
var scalarStop = func() (t [256]bool) {
	for _, c := range []byte(",}] \t\r\n{[\":") {
		t[c] = true
	}
	return t
}()

// skipSpace is the offset of the first byte at or after i that is not JSON white space.
func skipSpace(src []byte, i int) int {
	for i < len(src) {
		switch src[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd is the offset just past the string that starts at src[i]; false when its
// closing quote is not in src.
func stringEnd(src []byte, i int) (int, bool) {
	for i++; i < len(src); i++ {
		for i < len(src) && plainInString[src[i]] {
			i++
		}
		if i >= len(src) {
			break
		}
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return len(src), false
}

// bracketEnd is the offset just past the object or array that starts at src[i]; false
// when its closing bracket is not in src.
func bracketEnd(src []byte, i int) (int, bool) {
	depth := 0
	for i < len(src) {
		switch src[i] {
		case '"':
			end, ok := stringEnd(src, i)
			if !ok {
				return len(src), false
			}
			i = end
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1, true
			}
		}
		i++
	}
	return len(src), false
}

// Args is the arguments of a tool call as they are passed on: raw without the white
// space around it, and {} when that leaves nothing or null (a call without arguments).
// Whether what is left is an object is the caller's check.
func Args(raw []byte) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}") // a new one each time: a caller may write to it
	}
	return json.RawMessage(t)
}
