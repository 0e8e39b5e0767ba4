package session

import (
	"bytes"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
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

// idScanner follows the top-level members of one JSON message as it streams past
// (jsonscan.Members), keeping only a few bytes of it, to say when its top-level object
// closes whether it is a reply that names another id than the one expected. A reply's id
// is what encoding/json (mcp-go's decoder) reads: the last top-level member whose key is
// "id" in any letter case. On an event stream (requests) mcp-go takes a message for the
// server's own request or notification, whatever its id, when it has a top-level
// "method" member (that exact key) and decodes as a request: every member whose key is
// "method" in any letter case holds a string or null. A body it takes for the answer
// whatever it holds. Only the first JSON value of the stream fed is judged, as mcp-go
// reads only that one. An invalid message may get any verdict: mcp-go cannot decode it.
type idScanner struct {
	requests bool // the reader takes messages with a method for requests (an event stream)

	scan   jsonscan.Members
	isID   bool // the value being read is a top-level "id"'s
	isMeth bool // ... a member's whose key is "method" in any letter case
	begun  bool // the value being read has begun

	key     []byte // the top-level key being read, as written (at most maxKeyRaw bytes inside its quotes)
	keyLong bool
	val     []byte // the id being read, as written (at most maxIDRaw bytes)
	valLong bool

	id        []byte // the last top-level id read (nil: none)
	idLong    bool   // it was longer than maxIDRaw
	method    bool   // a top-level "method" member was read
	badMethod bool   // a "method" member in some letter case holds neither a string nor null
	ours      bool   // the message is a reply that names the expected id
}

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
	for len(b) > 0 {
		n, ev := s.scan.Step(b)
		switch part, what := s.scan.Part(b[:n]); what {
		case jsonscan.InKey:
			s.key, s.keyLong = keep(s.key, s.keyLong, part, maxKeyRaw+2)
		case jsonscan.InValue:
			if !s.begun {
				s.begun = true
				if s.isMeth && part[0] != '"' && part[0] != 'n' {
					s.badMethod = true
				}
			}
			if s.isID {
				s.val, s.valLong = keep(s.val, s.valLong, part, maxIDRaw)
			}
		}
		b = b[n:]
		switch ev {
		case jsonscan.KeyEnd:
			s.keyEnded()
		case jsonscan.ValueEnd:
			if s.isID {
				s.id, s.idLong = append(s.id[:0], s.val...), s.valLong
			}
			s.isID, s.isMeth = false, false
		case jsonscan.Closed:
			return s.verdict(want)
		}
	}
	return false
}

// keep appends b to buf up to most bytes; long once b did not fit.
func keep(buf []byte, long bool, b []byte, most int) ([]byte, bool) {
	if long {
		return buf, true
	}
	if room := most - len(buf); len(b) > room {
		return append(buf, b[:room]...), true
	}
	return append(buf, b...), false
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

// keyEnded reads the top-level key just read, as encoding/json does (escapes decoded).
func (s *idScanner) keyEnded() {
	k, long := s.key, s.keyLong
	s.key, s.keyLong, s.begun = s.key[:0], false, false
	s.val, s.valLong = s.val[:0], false
	if long || len(k) < 2 {
		return
	}
	name := k[1 : len(k)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		d, ok := jsonscan.Unquote(k)
		if !ok {
			return
		}
		name = []byte(d)
	}
	s.method = s.method || string(name) == "method"
	s.isMeth = bytes.EqualFold(name, []byte("method"))
	s.isID = bytes.EqualFold(name, []byte("id"))
}
