package search

import (
	"bytes"
	"encoding/json"

	gojson "github.com/goccy/go-json"
)

// ParamsFromSchema extracts the top-level property names and descriptions of
// a JSON object schema, in the order the schema lists them. Anything that is
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
			Description any `json:"description"`
		}
		if gojson.Unmarshal(raw, &body) == nil {
			if s, ok := body.Description.(string); ok {
				p.Description = s
			}
		}
		out = append(out, p)
	}
	return out
}
