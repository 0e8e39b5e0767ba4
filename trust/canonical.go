package trust

import (
	"bytes"
	"encoding/json"
	"slices"
)

// canonicalJSON re-encodes raw with no insignificant space and every object's members
// sorted by key (members of one key keep their order), strings and numbers kept as
// written; empty or invalid JSON becomes null. Fingerprints hash every tool of every
// pinned server, often, so this works on the bytes instead of decoding into maps.
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	var compact bytes.Buffer
	if len(bytes.TrimSpace(raw)) == 0 || json.Compact(&compact, raw) != nil {
		return json.RawMessage("null")
	}
	src := compact.Bytes()
	var c canonicalizer
	return c.value(make([]byte, 0, len(src)), src)
}

// member is one object member of compact JSON: its key as written, the key's text (for
// sorting) and its value's bytes.
type member struct {
	key, sortKey, val []byte
}

// canonicalizer holds the members of the objects being re-encoded, innermost last, so
// that one slice serves every object of a value.
type canonicalizer struct{ members []member }

// value appends the canonical form of the compact JSON value src to dst.
func (c *canonicalizer) value(dst, src []byte) []byte {
	switch src[0] {
	case '{':
		start := len(c.members)
		for i := 1; src[i] != '}'; {
			k := skipValue(src[i:])
			key := src[i : i+k]
			i += k + 1 // the key and its ':'
			v := skipValue(src[i:])
			c.members = append(c.members, member{key: key, sortKey: keyText(key), val: src[i : i+v]})
			i += v
			if src[i] == ',' {
				i++
			}
		}
		end := len(c.members)
		slices.SortStableFunc(c.members[start:end], func(a, b member) int { return bytes.Compare(a.sortKey, b.sortKey) })
		dst = append(dst, '{')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			// Indexed each time: the values' own objects may grow the slice.
			dst = append(append(dst, c.members[j].key...), ':')
			dst = c.value(dst, c.members[j].val)
		}
		c.members = c.members[:start]
		return append(dst, '}')
	case '[':
		dst = append(dst, '[')
		for i := 1; src[i] != ']'; {
			v := skipValue(src[i:])
			if i > 1 {
				dst = append(dst, ',')
			}
			dst = c.value(dst, src[i:i+v])
			i += v
			if src[i] == ',' {
				i++
			}
		}
		return append(dst, ']')
	}
	return append(dst, src[:skipValue(src)]...)
}

// skipValue is the length of the compact JSON value at the start of src.
func skipValue(src []byte) int {
	switch src[0] {
	case '"':
		i := 1
		for src[i] != '"' {
			if src[i] == '\\' {
				i++
			}
			i++
		}
		return i + 1
	case '{', '[':
		depth := 0
		for i := 0; i < len(src); i++ {
			switch src[i] {
			case '"':
				i += skipValue(src[i:]) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(src)
	}
	i := 0
	for i < len(src) && src[i] != ',' && src[i] != '}' && src[i] != ']' {
		i++
	}
	return i
}

// keyText is a quoted key's text: its bytes between the quotes, unescaped when it holds
// escapes.
func keyText(key []byte) []byte {
	if bytes.IndexByte(key, '\\') < 0 {
		return key[1 : len(key)-1]
	}
	var s string
	if json.Unmarshal(key, &s) != nil {
		return key
	}
	return []byte(s)
}
