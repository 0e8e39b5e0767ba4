package session

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// ForeignReplyError is a reply that named another request's id on a stream that carries
// the answer to one request (LimitOptions.OneAnswer): it was not taken as that answer.
type ForeignReplyError struct {
	// ID is the id the reply named and Want the request's, as JSON (ID cut to a few
	// bytes: it is the server's text).
	ID, Want string
}

func (e *ForeignReplyError) Error() string {
	return "the server's answer named another request's id (" + e.ID + ") instead of this request's (" + e.Want +
		"), so it was not taken as the answer; the server (or a proxy in front of it) may have mixed up its answers: try again, and report it to the server's maintainers if it goes on"
}

// maxIDText bounds an id as an error or the log shows it.
const maxIDText = 64

// idText is an id as JSON, cut to a few bytes.
func idText(id []byte) string {
	return textcut.Truncate(string(id), maxIDText)
}

// matchID says whether a reply's id (JSON) names a request (named), and whether that is
// the one whose id is want (same), as mcp-go matches them (mcp.RequestId: a string, or a
// number compared as an integer when it is one). A null id names no request, and
// neither does one mcp-go cannot read (an object, a literal): mcp-go takes the first for
// a notification and fails to decode a message with the second.
func matchID(id, want json.RawMessage) (named, same bool) {
	var a, b mcp.RequestId
	if a.UnmarshalJSON(id) != nil || b.UnmarshalJSON(want) != nil || a.IsNil() {
		return false, false
	}
	return true, a.String() == b.String()
}

// idScanner follows the top-level members of one JSON message as it streams past,
// keeping only a few bytes of it, to say when its top-level object closes whether it is
// a reply that names another id than the one expected. A reply's id is what
// encoding/json (mcp-go's decoder) reads: the last top-level member whose key is "id" in
// any letter case. On an event stream (requests) mcp-go takes a message for the server's
// own request or notification, whatever its id, when it has a top-level "method" member
// (that exact key) and decodes as a request: every member whose key is "method" in any
// letter case holds a string or null. A body it takes for the answer whatever it holds.
// Only the first JSON value of the stream fed is judged, as mcp-go reads only that one.
// An invalid message may get any verdict: mcp-go cannot decode it.
type idScanner struct {
	requests bool // the reader takes messages with a method for requests (an event stream)

	st    scanState
	depth int  // nesting inside a member's value (0: among the top-level members)
	str   bool // inside a string (a key, or any value)
	esc   bool // inside a string, the next byte is escaped

	key     []byte // the top-level key being read, raw (at most maxKeyRaw bytes)
	keyLong bool
	isID    bool   // the value being read is a top-level "id"'s
	isMeth  bool   // ... or a member's whose key is "method" in any letter case
	val     []byte // that value, raw (at most maxIDRaw bytes)
	valLong bool

	id        []byte // the last top-level id read (nil: none)
	idLong    bool   // it was longer than maxIDRaw
	method    bool   // a top-level "method" member was read
	badMethod bool   // a "method" member in some letter case holds neither a string nor null
	ours      bool   // the message is a reply that names the expected id
}

type scanState uint8

const (
	scanStart  scanState = iota // before the message's first byte that is no space
	scanKey                     // among the top-level members, before a key or the end
	scanColon                   // after a key, before its colon
	scanValue                   // after a colon, before the value
	scanScalar                  // inside a top-level member's number or literal
	scanNested                  // inside a top-level member's string, object or array
	scanAfter                   // after a top-level member's value
	scanDone                    // the first value ended, or it is no object
)

// A key longer than maxKeyRaw (raw, with its escapes) cannot be "id" or "method"; an id
// longer than maxIDRaw is taken for another request's (a reply written that way is no
// reply to one of ours, whose ids are short).
const (
	maxKeyRaw = 48
	maxIDRaw  = 256
)

// reset starts a new message.
func (s *idScanner) reset() {
	*s = idScanner{requests: s.requests, key: s.key[:0], val: s.val[:0], id: s.id[:0]}
}

// foreign feeds b, the next bytes of the message, and says whether its top-level object
// closed in b as a reply naming another id than want.
func (s *idScanner) foreign(b []byte, want json.RawMessage) bool {
	for i := 0; i < len(b); {
		if s.st == scanDone {
			return false
		}
		if s.str {
			i = s.inString(b, i)
			continue
		}
		c := b[i]
		i++
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			if s.st == scanScalar {
				s.valueEnded()
			}
			continue
		}
		switch s.st {
		case scanStart:
			s.st = scanDone
			if c == '{' {
				s.st = scanKey
			}
		case scanKey:
			switch c {
			case '"':
				s.str, s.key, s.keyLong = true, s.key[:0], false
			case '}':
				s.st = scanDone
				return s.verdict(want)
			case ',':
			default:
				s.st = scanDone
			}
		case scanColon:
			s.st = scanDone
			if c == ':' {
				s.st = scanValue
			}
		case scanValue:
			s.val, s.valLong = s.val[:0], false
			if s.isMeth && c != '"' && c != 'n' {
				s.badMethod = true
			}
			switch c {
			case '"':
				s.st, s.str = scanNested, true
			case '{', '[':
				s.st, s.depth = scanNested, 1
			default:
				s.st = scanScalar
			}
			s.keep(c)
		case scanScalar:
			if c == ',' || c == '}' {
				s.valueEnded()
				i-- // the delimiter is read again among the members
				continue
			}
			s.keep(c)
		case scanNested:
			s.keep(c)
			switch c {
			case '"':
				s.str = true
			case '{', '[':
				s.depth++
			case '}', ']':
				if s.depth--; s.depth == 0 {
					s.valueEnded()
				}
			}
		case scanAfter:
			s.st = scanDone
			switch c {
			case ',':
				s.st = scanKey
			case '}':
				return s.verdict(want)
			}
		}
	}
	return false
}

// verdict is, at the close of the top-level object, whether it is a reply that names
// another id than want; ours is set when it is a reply that names want.
func (s *idScanner) verdict(want json.RawMessage) bool {
	request := s.requests && s.method && !s.badMethod
	if request || s.id == nil {
		return false
	}
	if s.idLong {
		return true
	}
	named, same := matchID(s.id, want)
	s.ours = named && same
	return named && !same
}

// inString reads b from i inside a string (a key or a value) up to its closing quote, or
// all of b; it returns where it stopped.
func (s *idScanner) inString(b []byte, i int) int {
	for i < len(b) {
		if s.esc {
			s.esc = false
			s.keepStr(b[i : i+1])
			i++
			continue
		}
		rest := b[i:]
		end := bytes.IndexByte(rest, '"')
		if end < 0 {
			end = len(rest)
		}
		if bs := bytes.IndexByte(rest[:end], '\\'); bs >= 0 {
			s.keepStr(rest[:bs+1])
			s.esc = true
			i += bs + 1
			continue
		}
		s.keepStr(rest[:end])
		if end == len(rest) {
			return len(b)
		}
		// The closing quote.
		s.str = false
		switch {
		case s.st == scanKey:
			s.keyEnded()
		case s.depth == 0: // a top-level member's string value
			s.keep('"')
			s.valueEnded()
		default:
			s.keep('"')
		}
		return i + end + 1
	}
	return i
}

// keepStr keeps the bytes of a string being read when they are a top-level key's or id's.
func (s *idScanner) keepStr(b []byte) {
	switch {
	case s.st == scanKey && !s.keyLong:
		if len(s.key)+len(b) > maxKeyRaw {
			s.keyLong = true
			return
		}
		s.key = append(s.key, b...)
	case s.st != scanKey && s.isID && !s.valLong:
		if len(s.val)+len(b) > maxIDRaw {
			s.valLong = true
			return
		}
		s.val = append(s.val, b...)
	}
}

// keep keeps a byte of the top-level id being read.
func (s *idScanner) keep(c byte) {
	if !s.isID || s.valLong {
		return
	}
	if len(s.val) == maxIDRaw {
		s.valLong = true
		return
	}
	s.val = append(s.val, c)
}

// keyEnded reads the top-level key just read, as encoding/json does (escapes decoded).
func (s *idScanner) keyEnded() {
	s.st, s.isID, s.isMeth = scanColon, false, false
	if s.keyLong {
		return
	}
	k := string(s.key)
	if strings.IndexByte(k, '\\') >= 0 {
		if json.Unmarshal([]byte(`"`+k+`"`), &k) != nil {
			return
		}
	}
	s.method = s.method || k == "method"
	s.isMeth = strings.EqualFold(k, "method")
	s.isID = strings.EqualFold(k, "id")
}

// valueEnded ends a top-level member's value.
func (s *idScanner) valueEnded() {
	s.st = scanAfter
	if s.isID {
		s.id, s.idLong = append(s.id[:0], s.val...), s.valLong
		s.isID = false
	}
}
