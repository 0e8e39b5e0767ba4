package jsonscan

import (
	"bytes"
	"encoding/json"
	"iter"
	"strings"
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
	stop := 0 // the first byte that is not plain
	for stop < len(inner) && plainInString[inner[stop]] {
		stop++
	}
	// Escapes are ASCII: the text is valid UTF-8 as decoded if it is as written, and
	// encoding/json replaces what is not.
	if utf8.Valid(inner) {
		if stop == len(inner) {
			return string(inner), true
		}
		if s, ok := unquoteShort(inner, stop); ok {
			return s, true
		}
	}
	var s string
	if json.Unmarshal(b, &s) != nil {
		return "", false
	}
	return s, true
}

// unquoteShort decodes the inside of a JSON string whose escapes are all of one
// character (\n, \", ...), valid UTF-8 (the caller checked) holding no control
// character, whose bytes before from are plain: what a description with line breaks or
// quotes is. It says false for anything else (a \u escape, a bad one), which
// encoding/json decodes or refuses instead.
func unquoteShort(inner []byte, from int) (string, bool) {
	var out strings.Builder
	out.Grow(len(inner))
	out.Write(inner[:from])
	for i := from; i < len(inner); i++ {
		c := inner[i]
		if plainInString[c] {
			j := i + 1
			for j < len(inner) && plainInString[inner[j]] {
				j++
			}
			out.Write(inner[i:j])
			i = j - 1
			continue
		}
		if c != '\\' || i+1 == len(inner) {
			return "", false // a control character or a quote: not a valid string
		}
		i++
		switch inner[i] {
		case '"', '\\', '/':
			out.WriteByte(inner[i])
		case 'n':
			out.WriteByte('\n')
		case 't':
			out.WriteByte('\t')
		case 'r':
			out.WriteByte('\r')
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		default:
			return "", false
		}
	}
	return out.String(), true
}

// Members follows the top-level members of the JSON object a text starts with, fed to
// it piece by piece: the text may be a buffer (Object reads one through it) or a stream
// far larger than anyone keeps (the reply limiter's). Step reads a piece up to the end
// of the next member's key or value and says which (an Event); Part picks, out of the
// bytes a Step read, those of the key or value being read, for a caller that keeps them
// as they stream past. Nested
// values are skipped by counting brackets outside strings; what is inside them is not
// checked, and reading stops at the first byte the member grammar does not allow. Only
// the first JSON value of the text is read. The zero value is ready for the text's start.
//
// It is the one member scanner of the tree: schema normalising (cache), parameter
// extraction (search), the host frame head (extension), and the reply limiter's reply
// ids as they stream past (session) read members through it.
type Members struct {
	st    memberState
	part  Part // what the last byte read is of
	depth int  // stNested: brackets open
	str   bool // stNested: inside a string
	esc   bool // inside a string, the next byte is escaped

	read int // bytes of the text read so far
	// whole: the caller reads a buffer and needs no stop at a key's end (Object).
	whole         bool
	keyAt, keyEnd int // the current member's key, as offsets in the text
	valueAt       int // ... its value's first byte
}

type memberState uint8

const (
	stStart  memberState = iota // before the opening brace
	stFirst                     // after the opening brace: a key or the closing brace
	stNext                      // after a comma: a key
	stKey                       // inside a key
	stColon                     // after a key
	stValue                     // after a colon
	stScalar                    // inside a number or literal
	stString                    // inside a string value
	stNested                    // inside an object or array value
	stAfter                     // after a value: a comma or the closing brace
	stDone                      // the object closed, or the grammar broke
)

// Event is what Step came to.
type Event uint8

// The events.
const (
	// More: the piece was read to its end, and there is nothing to tell.
	More Event = iota
	// KeyEnd: the last byte read is a member key's closing quote.
	KeyEnd
	// ValueEnd: the member's value ended with the last byte read (a number or literal
	// ends before the byte after it, which is not read yet).
	ValueEnd
	// Closed: the last byte read is the object's closing brace; every member was seen.
	Closed
	// Stopped: the text is no object, or the byte after those read breaks the member
	// grammar.
	Stopped
)

// Part is what the bytes a Step read are of.
type Part uint8

// The parts.
const (
	// Between: no member's key or value (the brackets, colons, commas, white space).
	Between Part = iota
	// InKey: the bytes end in a key, or with it.
	InKey
	// InValue: the bytes end in a value, or with it.
	InValue
)

// Step reads p, the text's next bytes, up to the next event; it returns how many bytes it
// read (the rest is for the next Step) and the event. Once the object closed or reading
// stopped, the rest of the text is read with More.
func (s *Members) Step(p []byte) (int, Event) {
	n, ev := s.step(p)
	s.read += n
	return n, ev
}

// Part is, out of read (the bytes the last Step read), those of the key or value it
// ended in or with, and which (Between: none, nil). A key is read with its quotes, a
// value as written: the parts of the Steps from its first byte to its end, joined, are it.
func (s *Members) Part(read []byte) ([]byte, Part) {
	at := s.keyAt
	switch s.part {
	case Between:
		return nil, Between
	case InValue:
		at = s.valueAt
	}
	return read[max(0, at-(s.read-len(read))):], s.part
}

func (s *Members) step(p []byte) (int, Event) {
	i := 0
	s.part = Between
	for {
		switch s.st {
		case stStart, stFirst, stNext, stColon, stValue, stAfter:
			i = skipSpace(p, i)
			if i == len(p) {
				return i, More
			}
			c := p[i]
			switch s.st {
			case stStart:
				if c != '{' {
					return s.stop(i)
				}
				s.st = stFirst
			case stFirst, stNext:
				if c == '}' && s.st == stFirst {
					s.st = stDone
					return i + 1, Closed
				}
				if c != '"' {
					return s.stop(i)
				}
				s.st, s.keyAt = stKey, s.read+i
			case stColon:
				if c != ':' {
					return s.stop(i)
				}
				s.st = stValue
			case stValue:
				s.valueAt = s.read + i
				switch c {
				case '"':
					s.st = stString
				case '{', '[':
					s.st, s.depth, s.str = stNested, 1, false
				case ',', '}', ']', ':':
					return s.stop(i)
				default:
					s.st = stScalar
					continue
				}
			default: // stAfter
				switch c {
				case ',':
					s.st = stNext
				case '}':
					s.st = stDone
					return i + 1, Closed
				default:
					return s.stop(i)
				}
			}
			i++
		case stKey, stString:
			end, ok := s.inString(p, i)
			if s.part = InValue; s.st == stKey {
				s.part = InKey
			}
			if !ok {
				return end, More
			}
			if s.st == stKey {
				s.st, s.keyEnd = stColon, s.read+end
				if !s.whole {
					return end, KeyEnd
				}
				i, s.part = end, Between
				continue
			}
			s.st = stAfter
			return end, ValueEnd
		case stScalar:
			s.part = InValue
			for i < len(p) && !scalarStop[p[i]] {
				i++
			}
			if i == len(p) {
				return i, More
			}
			s.st = stAfter
			return i, ValueEnd
		case stNested:
			s.part = InValue
			if s.str {
				end, ok := s.inString(p, i)
				if !ok {
					return end, More
				}
				i, s.str = end, false
			}
			for depth := s.depth; ; {
				q := p[i:]
				j := 0
				for j < len(q) && !structural[q[j]] {
					j++
				}
				if i += j; j == len(q) {
					s.depth = depth
					return i, More
				}
				i++
				switch q[j] {
				case '"':
					end, ok := s.inString(p, i)
					if !ok {
						s.depth, s.str = depth, true
						return end, More
					}
					i = end
				case '{', '[':
					depth++
				default: // '}', ']'
					if depth--; depth == 0 {
						s.st, s.depth = stAfter, 0
						return i, ValueEnd
					}
				}
			}
		default: // stDone
			return len(p), More
		}
	}
}

func (s *Members) stop(i int) (int, Event) {
	s.st = stDone
	return i, Stopped
}

// inString reads p from i inside a string up to and including its closing quote; false
// when p ends first. A backslash escapes the byte after it, which may be in the next
// piece. Most strings (keys, short values) end within a few bytes, read one at a time; a
// long one's end is searched for (longString).
func (s *Members) inString(p []byte, i int) (int, bool) {
	if s.esc {
		if i == len(p) {
			return i, false
		}
		s.esc = false
		i++
	}
	for short := min(len(p), i+shortString); i < short; {
		q := p[i:short]
		j := 0
		for j < len(q) && !stringStop[q[j]] {
			j++
		}
		if i += j; j == len(q) {
			break
		}
		if p[i] == '"' {
			return i + 1, true
		}
		if i += 2; i > len(p) { // a backslash ends p
			s.esc = true
			return len(p), false
		}
	}
	if i >= len(p) {
		return len(p), false
	}
	return s.longString(p, i)
}

// shortString is how many bytes of a string inString reads one at a time.
const shortString = 32

// longString is inString past a string's first bytes, from i (not escaped): it searches
// for the next quote and for the backslashes before it.
func (s *Members) longString(p []byte, i int) (int, bool) {
	for {
		end := len(p)
		q := bytes.IndexByte(p[i:], '"')
		if q >= 0 {
			end = i + q
		}
		for {
			b := bytes.IndexByte(p[i:end], '\\')
			if b < 0 {
				break
			}
			if i += b + 2; i > end {
				break
			}
		}
		switch {
		case i > len(p): // p ends with a backslash
			s.esc = true
			return len(p), false
		case i > end: // the quote is escaped
			continue
		case q < 0:
			return len(p), false
		}
		return end + 1, true
	}
}

// Object reads, one at a time and without decoding them, the top-level members of the
// JSON object a buffer starts with, through Members. The text may be cut off anywhere
// (the start of a line too long to keep): a member is returned only when it is whole. A
// caller that must know the text is valid JSON checks it first.
type Object struct {
	src  []byte
	i    int
	scan Members
	done bool
	m    Member
}

// NewObject starts reading the members of the object src starts with (white space may
// come first).
func NewObject(src []byte) *Object { return &Object{src: src, scan: Members{whole: true}} }

// Next reads the next whole member; false when there is none: the object closed, the
// text ended, or it broke the grammar.
func (o *Object) Next() bool {
	src, i := o.src, o.i
	for !o.done {
		n, ev := o.scan.Step(src[i:])
		i += n
		switch ev {
		case ValueEnd:
			sc := &o.scan
			o.i, o.m = i, Member{Key: src[sc.keyAt:sc.keyEnd], Value: src[sc.valueAt:i], At: sc.keyAt, ValueAt: sc.valueAt}
			return true
		default: // the text ended, broke the grammar, or the object closed
			o.done = true
		}
	}
	o.i = i
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

// scalarStop holds the bytes that end a number or literal.
var scalarStop = func() (t [256]bool) {
	for _, c := range []byte(",}] \t\r\n{[\":") {
		t[c] = true
	}
	return t
}()

// stringStop holds the bytes that matter inside a string.
var stringStop = func() (t [256]bool) {
	t['"'], t['\\'] = true, true
	return t
}()

// structural holds the bytes that matter inside a nested value, outside its strings.
var structural = func() (t [256]bool) {
	for _, c := range []byte(`"{}[]`) {
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
