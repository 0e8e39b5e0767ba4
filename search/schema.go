package search

import (
	"bytes"
	"encoding/json"

	gojson "github.com/goccy/go-json"
)

// ParamsFromSchema extracts the top-level property names, descriptions and
// string enum values (of the property or of its array items, at most
// maxEnumValues) of a JSON object schema, in the order the schema lists them. Anything that is
// not an object schema with a "properties" object (including invalid JSON)
// yields nil; a property whose value is not an object keeps its name with an
// empty description.
//
// It runs once per tool when the index is built, so it checks the schema
// once (github.com/goccy/go-json's grammar check), walks the members of the
// valid JSON itself, and decodes only each property's body.
func ParamsFromSchema(schema json.RawMessage) []Param {
	if !gojson.Valid(schema) {
		return nil
	}
	var props []byte
	if !eachMember(schema, func(key []byte, escaped bool, val []byte) {
		if memberKey(key, escaped) == "properties" {
			props = val // the last one wins, as when decoding into a map
		}
	}) || props == nil {
		return nil
	}
	var out []Param
	eachMember(props, func(key []byte, escaped bool, raw []byte) {
		p := Param{Name: memberKey(key, escaped)}
		var body struct {
			Description any   `json:"description"`
			Enum        []any `json:"enum"`
			Items       struct {
				Enum []any `json:"enum"`
			} `json:"items"`
		}
		if gojson.Unmarshal(raw, &body) == nil {
			if s, ok := body.Description.(string); ok {
				p.Description = s
			}
			p.Enum = enumStrings(p.Enum, body.Enum)
			p.Enum = enumStrings(p.Enum, body.Items.Enum)
		}
		out = append(out, p)
	})
	return out
}

// eachMember calls fn with each member of the JSON object src, in order: its
// key as written between the quotes (escaped says whether it holds escapes)
// and its value. src must be valid JSON; it reports false when src is not an
// object.
func eachMember(src []byte, fn func(key []byte, escaped bool, val []byte)) bool {
	i := skipSpace(src, 0)
	if i >= len(src) || src[i] != '{' {
		return false
	}
	i = skipSpace(src, i+1)
	for i < len(src) && src[i] == '"' {
		end, escaped := stringEnd(src, i)
		key := src[i+1 : end-1]
		i = skipSpace(src, end) // at ':'
		start := skipSpace(src, i+1)
		i = valueEnd(src, start)
		fn(key, escaped, src[start:i])
		i = skipSpace(src, i)
		if i < len(src) && src[i] == ',' {
			i = skipSpace(src, i+1)
		}
	}
	return true
}

// memberKey returns the text of a member's key.
func memberKey(key []byte, escaped bool) string {
	if !escaped {
		return string(key)
	}
	var s string
	quoted := append(append([]byte{'"'}, key...), '"')
	if gojson.Unmarshal(quoted, &s) != nil {
		return string(key)
	}
	return s
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
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

// stringEnd returns the index just past the JSON string that starts at
// src[i] and whether it holds escapes.
func stringEnd(src []byte, i int) (int, bool) {
	escaped := false
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i + 1, escaped
		}
	}
	return len(src), escaped
}

// valueEnd returns the index just past the valid JSON value that starts at
// src[i].
func valueEnd(src []byte, i int) int {
	if i >= len(src) {
		return i
	}
	switch src[i] {
	case '"':
		end, _ := stringEnd(src, i)
		return end
	case '{', '[':
		depth := 0
		for i < len(src) {
			switch src[i] {
			case '"':
				i, _ = stringEnd(src, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	// A number, true, false or null ends before the next delimiter.
	if n := bytes.IndexAny(src[i:], ",}] \t\n\r"); n >= 0 {
		return i + n
	}
	return len(src)
}

// maxEnumValues caps the enum values kept per parameter: long enums (time
// zones, languages) add little beyond their first entries.
const maxEnumValues = 48

// enumStrings appends the string values of vals to dst, up to maxEnumValues.
func enumStrings(dst []string, vals []any) []string {
	for _, v := range vals {
		if len(dst) >= maxEnumValues {
			break
		}
		if s, ok := v.(string); ok && s != "" {
			dst = append(dst, s)
		}
	}
	return dst
}
