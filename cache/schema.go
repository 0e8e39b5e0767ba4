package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
)

// emptyObjectSchema is the schema of a tool that takes no arguments.
const emptyObjectSchema = `{"type":"object","properties":{}}`

// NormalizeSchema returns a compact JSON object schema that strict providers
// accept:
//
//   - nil, empty, "null", invalid JSON or a JSON value that is not an object
//     becomes {"type":"object","properties":{}} (CheckInputSchema tells these
//     apart from usable schemas);
//   - an object without "type" (or with "type": null, or a type that is not a
//     string or array) gets "type":"object", and a type list that allows
//     "object" (["object","null"]) becomes "object": arguments are always an
//     object, and providers require that type at the top;
//   - an object whose type is "object" (or has no type) and that has no
//     "properties" gets "properties":{}; "properties" that is null or not an
//     object becomes {};
//   - "required" given as one string becomes a list of it; a "required" that
//     is neither is dropped, and non-strings are dropped from the list.
//
// Every other keyword ($defs, definitions, anyOf, $schema, description, ...)
// is kept as is and in its original order; an added "type" comes first and an
// added "properties" right after "type". Nested schemas are not changed. The
// result is always a new slice, never raw itself.
func NormalizeSchema(raw json.RawMessage) json.RawMessage {
	out, _, _ := normalize(raw)
	return out
}

// CheckInputSchema normalizes a tool's input schema like NormalizeSchema and says what it
// had to repair (one short phrase each). It fails for a schema no tool call can satisfy
// or that says nothing usable about the arguments: invalid JSON, a value that is neither
// an object nor a boolean, false, or a top-level type that excludes objects. A missing
// schema (nil, empty or null) or true means "no constraints" and is not an error.
func CheckInputSchema(raw json.RawMessage) (json.RawMessage, []string, error) {
	return normalize(raw)
}

func normalize(raw json.RawMessage) (json.RawMessage, []string, error) {
	var buf bytes.Buffer
	buf.Grow(len(raw))
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage(emptyObjectSchema), nil, nil
	}
	if json.Compact(&buf, raw) != nil {
		return json.RawMessage(emptyObjectSchema), nil, errors.New("input schema is not valid JSON")
	}
	src := buf.Bytes()
	switch {
	case string(src) == "null" || string(src) == "true":
		return json.RawMessage(emptyObjectSchema), nil, nil
	case string(src) == "false":
		return json.RawMessage(emptyObjectSchema), nil, errors.New("input schema is false (no arguments are valid)")
	case src[0] != '{':
		return json.RawMessage(emptyObjectSchema), nil, fmt.Errorf("input schema is a JSON %s, not an object", jsonKind(src[0]))
	}

	var members []jsonscan.Member
	for m := range jsonscan.NewObject(src).All() {
		members = append(members, m)
	}
	typeAt, propsAt := -1, -1
	replace := map[int]string{} // member index -> new value; "" drops the member
	var fixes []string
	var unusable error
	value := func(i int) []byte { return members[i].Value }
	for i, m := range members {
		switch m.Name() {
		case "type":
			typeAt = i
		case "properties":
			propsAt = i
		case "required":
			v := value(i)
			switch v[0] {
			case '[':
				if fixed, changed := stringsOnly(v); changed {
					replace[i] = fixed
					fixes = append(fixes, `non-string entries dropped from "required"`)
				}
			case '"':
				replace[i] = "[" + string(v) + "]"
				fixes = append(fixes, `"required" was a string`)
			default:
				replace[i] = ""
				fixes = append(fixes, `"required" was not a list; dropped`)
			}
		}
	}
	isObject := typeAt < 0
	if typeAt >= 0 {
		v := value(typeAt)
		switch {
		case string(v) == `"object"`:
			isObject = true
		case string(v) == "null":
			isObject = true
			replace[typeAt] = `"object"`
		case v[0] == '"':
			unusable = fmt.Errorf("input schema has type %s; tool arguments are always an object", v)
		case v[0] == '[':
			var types []any
			_ = json.Unmarshal(v, &types)
			if slices.Contains(types, any("object")) {
				isObject = true
				replace[typeAt] = `"object"`
				fixes = append(fixes, fmt.Sprintf("type %s narrowed to \"object\"", v))
			} else {
				unusable = fmt.Errorf("input schema has type %s, which excludes an object", v)
			}
		default:
			isObject = true
			replace[typeAt] = `"object"`
			fixes = append(fixes, fmt.Sprintf("type %s replaced by \"object\"", v))
		}
	}
	if propsAt >= 0 {
		if v := value(propsAt); v[0] != '{' {
			replace[propsAt] = "{}"
			if string(v) != "null" {
				fixes = append(fixes, `"properties" was not an object; replaced by {}`)
			}
		}
	}
	addType := typeAt < 0
	addProps := propsAt < 0 && isObject
	if !addType && !addProps && len(replace) == 0 {
		return json.RawMessage(bytes.Clone(src)), fixes, unusable
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
		v, replaced := replace[i]
		if replaced && v == "" {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, src[m.At:m.ValueAt]...) // "key":
		if replaced {
			out = append(out, v...)
		} else {
			out = append(out, m.Value...)
		}
		if i == typeAt && addProps {
			out = append(out, `,"properties":{}`...)
		}
	}
	out = append(out, '}')
	return json.RawMessage(out), fixes, unusable
}

// stringsOnly returns the JSON array v without its non-string elements, and whether any
// were dropped.
func stringsOnly(v []byte) (string, bool) {
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		return "[]", true
	}
	kept := items[:0]
	for _, it := range items {
		if len(it) > 0 && it[0] == '"' {
			kept = append(kept, it)
		}
	}
	if len(kept) == len(items) {
		return "", false
	}
	b, _ := json.Marshal(kept)
	return string(b), true
}

// jsonKind names the kind of JSON value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '"':
		return "string"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	}
	return "number"
}
