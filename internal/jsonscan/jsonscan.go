// Package jsonscan reads JSON text without decoding it, in one pass over text that may be
// cut off or come in pieces. It does two jobs:
//
//   - Members follows the top-level members of an object, fed whole or piece by piece: it
//     says where each member's key and value start and end, and the caller keeps what it
//     needs (a reply's id as the reply streams past). Object is a loop over it on a buffer
//     (each member's key and value as written, with their offsets), so a caller can find or
//     rewrite a few members of a large text, or of the start of one, without decoding the
//     rest. It is the tree's one member scanner.
//   - Scanner finds the two faults for which the standard decoders (encoding/json,
//     goccy/go-json) reject a message whatever the rest of it says: a raw control character
//     (a byte below 0x20 inside a string, or between tokens where it is not whitespace) and
//     nesting deeper than MaxDepth. Nothing else is checked. Text it faults is never valid
//     JSON, so a caller may act on a fault without decoding; text it passes may still be
//     invalid.
//
// Why not json.Valid or a json.Decoder: the text it is used on may be far larger than what
// anyone keeps (a reply streamed through the reply cap) or cut off (the start of an
// over-long line), and arrives piece by piece; and a reader that only learns "invalid"
// cannot tell the model or the log what was wrong.
package jsonscan

import (
	"fmt"
	"strconv"
)

// MaxDepth is the deepest nesting of objects and arrays (the outermost one counts) that
// encoding/json and goccy/go-json decode; one level more and both fail.
const MaxDepth = 10000

// Fault is what makes a text unreadable as JSON.
type Fault uint8

// The faults.
const (
	// None: neither fault was found.
	None Fault = iota
	// ControlChar: a raw byte below 0x20 inside a string (JSON allows them only
	// escaped, as \u0000) or between tokens (other than tab, CR and LF).
	ControlChar
	// TooDeep: objects and arrays nested more than MaxDepth levels.
	TooDeep
)

// String names the fault for a log field.
func (f Fault) String() string {
	switch f {
	case None:
		return "none"
	case ControlChar:
		return "control character"
	case TooDeep:
		return "nesting too deep"
	}
	return "fault " + strconv.Itoa(int(f))
}

// Scanner follows JSON text piece by piece; the zero value is ready for a text's start.
type Scanner struct {
	depth int
	inStr bool // inside a string
	esc   bool // the previous byte was a backslash inside a string
	fault Fault
	char  byte // ControlChar: the byte
}

// Plain bytes need no state change: inside a string, all but '"', '\\' and controls;
// between tokens, all but '"', brackets and controls other than whitespace. A table
// lets the loops skip them one comparison a byte.
var plainInString, plainOutside = func() (in, out [256]bool) {
	for c := 0x20; c < 256; c++ {
		in[c] = true
		out[c] = true
	}
	in['"'], in['\\'] = false, false
	for _, c := range []byte(`"{}[]`) {
		out[c] = false
	}
	out[' '], out['\t'], out['\r'], out['\n'] = true, true, true, true
	return in, out
}()

// Write scans p, the text's next piece. Once a fault is found the rest is not looked at.
func (s *Scanner) Write(p []byte) {
	i := 0
	for i < len(p) && s.fault == None {
		if s.inStr {
			if s.esc {
				// The escaped byte never ends the string; an invalid escape is left to
				// the decoder.
				s.esc = false
				i++
				continue
			}
			for i < len(p) && plainInString[p[i]] {
				i++
			}
			if i == len(p) {
				return
			}
			switch c := p[i]; c {
			case '"':
				s.inStr = false
			case '\\':
				s.esc = true
			default:
				s.fault, s.char = ControlChar, c
			}
			i++
			continue
		}
		for i < len(p) && plainOutside[p[i]] {
			i++
		}
		if i == len(p) {
			return
		}
		switch c := p[i]; c {
		case '"':
			s.inStr = true
		case '{', '[':
			s.depth++
			if s.depth > MaxDepth {
				s.fault = TooDeep
			}
		case '}', ']':
			s.depth--
		default:
			s.fault, s.char = ControlChar, c
		}
		i++
	}
}

// Fault is the fault found so far (None: none).
func (s *Scanner) Fault() Fault { return s.fault }

// Char is the control character a ControlChar fault found.
func (s *Scanner) Char() byte { return s.char }

// Reset makes s ready for the next text.
func (s *Scanner) Reset() { *s = Scanner{} }

// Check scans a whole text.
func Check(b []byte) Fault {
	var s Scanner
	s.Write(b)
	return s.fault
}

// Reason words a fault for a sentence that starts with the text's subject ("it has a raw
// control character ..."); char is the byte a ControlChar fault found.
func Reason(f Fault, char byte) string {
	switch f {
	case ControlChar:
		return fmt.Sprintf("has a raw control character (byte 0x%02x) where JSON allows it only escaped", char)
	case TooDeep:
		return "nests objects and arrays more than " + strconv.Itoa(MaxDepth) + " levels deep, the most a JSON decoder here reads"
	}
	return "is readable"
}
