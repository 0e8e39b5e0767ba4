package jsonscan

import (
	"bytes"
	"encoding/json"
)

// What a framer that cuts messages (a reply over a size cap) needs to know of a JSON
// object it holds only the ends of: the top-level members its kept start shows whole,
// and those its kept end shows. Nothing here decodes the middle, which was discarded.

// Head is what the start of a JSON object says of it.
type Head struct {
	// ID and Method are the values of its top-level "id" and "method" members, when they
	// are among the members the start holds whole (nil: not there; a null id is none).
	ID, Method json.RawMessage
	// Cut is the key of the member the start ends inside ("": not known).
	Cut string
}

// ScanHead reads the top-level members of head, the start of a JSON object, that are
// whole, and the key of the one it ends inside. A value that reaches the end of head is
// taken as cut off, even one that decodes (a number kept as 42 of 4242).
func ScanHead(head []byte) (h Head) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return h
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil || dec.InputOffset() >= int64(len(head)) {
			h.Cut = k
			break
		}
		switch k {
		case "id":
			if len(v) > 0 && string(v) != "null" {
				h.ID = v
			}
		case "method":
			h.Method = v
		}
	}
	return h
}

// TailMember finds the value of the top-level member named key (quoted, `"id"`) among
// the members tail, the end of a JSON object, ends with. It walks back from the closing
// brace, member by member, while their values are strings, numbers or literals: the text
// before the closing brace is a top-level member, and so is the text before that
// member's comma, but a value that ends in a bracket may have begun in the bytes that
// are not in tail.
func TailMember(tail []byte, key string) (json.RawMessage, bool) {
	const space = " \t\r\n"
	b := bytes.TrimRight(tail, space)
	if len(b) == 0 || b[len(b)-1] != '}' {
		return nil, false
	}
	b = b[:len(b)-1]
	for {
		b = bytes.TrimRight(b, space)
		start := scalarStart(b)
		v := b[start:]
		if len(v) == 0 || !json.Valid(v) {
			return nil, false
		}
		rest := bytes.TrimRight(b[:start], space)
		if len(rest) == 0 || rest[len(rest)-1] != ':' {
			return nil, false
		}
		rest = bytes.TrimRight(rest[:len(rest)-1], space)
		if len(rest) == 0 || rest[len(rest)-1] != '"' {
			return nil, false
		}
		k := scalarStart(rest)
		before := bytes.TrimRight(rest[:k], space)
		if len(before) == 0 || (before[len(before)-1] != ',' && before[len(before)-1] != '{') {
			return nil, false
		}
		if string(rest[k:]) == key {
			return append(json.RawMessage(nil), v...), true
		}
		if before[len(before)-1] == '{' {
			return nil, false
		}
		b = before[:len(before)-1]
	}
}

// scalarStart is where the string, number or literal that b ends with begins (len(b)
// when b ends with none, or a string whose start is not in b).
func scalarStart(b []byte) int {
	end := len(b)
	switch {
	case end > 0 && b[end-1] == '"':
		for i := end - 2; i >= 0; i-- {
			if b[i] == '"' && !escaped(b[:i]) {
				return i
			}
		}
		return end
	case bytes.HasSuffix(b, []byte("true")), bytes.HasSuffix(b, []byte("null")):
		return end - 4
	case bytes.HasSuffix(b, []byte("false")):
		return end - 5
	}
	start := end
	for start > 0 && bytes.IndexByte([]byte("0123456789+-.eE"), b[start-1]) >= 0 {
		start--
	}
	return start
}

// escaped says whether the byte after b is escaped (an odd run of backslashes).
func escaped(b []byte) bool {
	n := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}
