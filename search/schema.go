package search

import (
	"bytes"
	"encoding/json"

	gojson "github.com/goccy/go-json"

	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
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
// valid JSON with jsonscan.Object, and decodes only each property's body.
func ParamsFromSchema(schema json.RawMessage) []Param {
	if !gojson.Valid(schema) {
		return nil
	}
	var props []byte
	for m := range jsonscan.NewObject(schema).All() {
		if m.Is("properties") {
			props = m.Value // the last one wins, as when decoding into a map
		}
	}
	if props == nil {
		return nil
	}
	var out []Param
	for m := range jsonscan.NewObject(props).All() {
		p := Param{Name: paramName(m)}
		var body struct {
			Description any   `json:"description"`
			Enum        []any `json:"enum"`
			Items       struct {
				Enum []any `json:"enum"`
			} `json:"items"`
		}
		if gojson.Unmarshal(m.Value, &body) == nil {
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

// paramName is a property's name: its key decoded when it holds an escape,
// and as written otherwise, bytes that are not UTF-8 included.
func paramName(m jsonscan.Member) string {
	k := m.Key[1 : len(m.Key)-1]
	if bytes.IndexByte(k, '\\') < 0 {
		return string(k)
	}
	return m.Name()
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
