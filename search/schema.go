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
// It runs once per tool when the index is built on the first search, so it uses
// github.com/goccy/go-json (several times faster than encoding/json here).
func ParamsFromSchema(schema json.RawMessage) []Param {
	var top map[string]json.RawMessage
	if err := gojson.Unmarshal(schema, &top); err != nil {
		return nil
	}
	props, ok := top["properties"]
	if !ok {
		return nil
	}
	dec := gojson.NewDecoder(bytes.NewReader(props))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out []Param
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		name, ok := tok.(string)
		if !ok {
			return out
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return out
		}
		p := Param{Name: name}
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
	}
	return out
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
