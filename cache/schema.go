package cache

import (
	"bytes"
	"encoding/json"
)

// emptyObjectSchema is the schema of a tool that takes no arguments.
const emptyObjectSchema = `{"type":"object","properties":{}}`

// NormalizeSchema returns a compact JSON object schema that strict providers
// accept:
//
//   - nil, empty, "null", invalid JSON or a JSON value that is not an object
//     becomes {"type":"object","properties":{}};
//   - an object without "type" (or with "type": null) gets "type":"object";
//   - an object whose type is "object" (or has no type) and that has no
//     "properties" gets "properties":{};
//   - "properties": null becomes "properties":{}.
//
// Every other keyword is kept as is and in its original order; an added
// "type" comes first and an added "properties" right after "type". Nested
// schemas are not changed. The result is always a new slice, never raw
// itself.
func NormalizeSchema(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	buf.Grow(len(raw))
	if len(raw) == 0 || json.Compact(&buf, raw) != nil {
		return json.RawMessage(emptyObjectSchema)
	}
	src := buf.Bytes()
	if src[0] != '{' {
		return json.RawMessage(emptyObjectSchema)
	}

	members := topLevelMembers(src)
	typeAt, propsAt := -1, -1
	for i, m := range members {
		switch m.key {
		case "type":
			typeAt = i
		case "properties":
			propsAt = i
		}
	}
	typeValue := func() []byte {
		if typeAt < 0 {
			return nil
		}
		m := members[typeAt]
		return src[m.valStart:m.valEnd]
	}
	typeNull := typeAt >= 0 && string(typeValue()) == "null"
	isObject := typeAt < 0 || typeNull || string(typeValue()) == `"object"`
	addType := typeAt < 0
	addProps := propsAt < 0 && isObject
	propsNull := propsAt >= 0 && string(src[members[propsAt].valStart:members[propsAt].valEnd]) == "null"
	if !addType && !addProps && !propsNull && !typeNull {
		return json.RawMessage(bytes.Clone(src))
	}

	out := make([]byte, 0, len(src)+32)
	out = append(out, '{')
	if addType {
		out = append(out, `"type":"object"`...)
		if addProps {
			out = append(out, `,"properties":{}`...)
		}
	}
	for i, m := range members {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, src[m.start:m.valStart]...) // "key":
		switch {
		case i == typeAt && typeNull:
			out = append(out, `"object"`...)
		case i == propsAt && propsNull:
			out = append(out, `{}`...)
		default:
			out = append(out, src[m.valStart:m.valEnd]...)
		}
		if i == typeAt && addProps {
			out = append(out, `,"properties":{}`...)
		}
	}
	out = append(out, '}')
	return json.RawMessage(out)
}

// member locates one top-level member of a compact JSON object: src[start:]
// begins with the quoted key, src[valStart:valEnd] is its value.
type member struct {
	key              string
	start            int
	valStart, valEnd int
}

// topLevelMembers lists the members of the compact, valid JSON object src.
func topLevelMembers(src []byte) []member {
	var members []member
	i := 1 // past '{'
	for i < len(src) && src[i] == '"' {
		start := i
		end := skipString(src, i)
		key := string(src[i+1 : end-1])
		if bytes.IndexByte(src[i:end], '\\') >= 0 {
			var k string
			if json.Unmarshal(src[i:end], &k) == nil {
				key = k
			}
		}
		valStart := end + 1 // past ':'
		valEnd := skipValue(src, valStart)
		members = append(members, member{key: key, start: start, valStart: valStart, valEnd: valEnd})
		i = valEnd
		if i < len(src) && src[i] == ',' {
			i++
		}
	}
	return members
}

// skipString returns the index just past the JSON string starting at src[i].
func skipString(src []byte, i int) int {
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(src)
}

// skipValue returns the index just past the compact, valid JSON value
// starting at src[i].
func skipValue(src []byte, i int) int {
	if i >= len(src) {
		return i
	}
	switch src[i] {
	case '"':
		return skipString(src, i)
	case '{', '[':
		depth := 0
		for i < len(src) {
			switch src[i] {
			case '"':
				i = skipString(src, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(src) {
			switch src[i] {
			case ',', '}', ']':
				return i
			}
			i++
		}
		return i
	}
}
