// Package toolview is how catalog tools are shown to the model: the server directory in
// the search tool's description, one line per search result, and the compact schema and
// example call of a proxy-mode answer. Pure functions over catalog entries and cached
// tools; which tools to show, and when, is the bridge's.
package toolview

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/internal/plainjson"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// PurposeLen is the length of the one-line purpose shown per search result.
const PurposeLen = 160

// propDescLen caps a property's description in a compacted schema.
const propDescLen = 100

// DirEntry is one server in the search tool's directory.
type DirEntry struct {
	Server string
	Tools  int
	Words  []string // a few words on what its tools cover
}

// Directory summarises refs per server, sorted by server: the tool count and the most
// frequent distinctive words of its tool names. One pass over the tools.
func Directory(refs []catalog.ToolRef) []DirEntry {
	type acc struct {
		tools int
		freq  map[string]int
	}
	per := map[string]*acc{}
	seen := map[string]bool{}
	var words []string
	for _, r := range refs {
		a := per[r.Server]
		if a == nil {
			a = &acc{freq: map[string]int{}}
			per[r.Server] = a
		}
		a.tools++
		clear(seen)
		words = nameWords(words[:0], r.Tool)
		for _, w := range words {
			if len(w) < 3 || blurbStop[w] || strings.Contains(r.Server, w) || seen[w] {
				continue
			}
			seen[w] = true
			a.freq[w]++
		}
	}
	out := make([]DirEntry, 0, len(per))
	for server, a := range per {
		out = append(out, DirEntry{Server: server, Tools: a.tools, Words: topWords(a.freq, 4)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Server < out[j].Server })
	return out
}

// nameWords appends the runs of the letters a–z of name lowered to dst, as
// strings.FieldsFunc would split it without its slice: splitting byte by byte is exact,
// as every byte of a rune beyond ASCII (and of invalid UTF-8) is a separator too.
func nameWords(dst []string, name string) []string {
	lower := strings.ToLower(name)
	start := -1
	for i := 0; i < len(lower); i++ {
		if c := lower[i]; c >= 'a' && c <= 'z' {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			dst = append(dst, lower[start:i])
			start = -1
		}
	}
	if start >= 0 {
		dst = append(dst, lower[start:])
	}
	return dst
}

// topWords is the first n words of freq, most frequent first and, as frequent, in
// byte order: the head of that sort taken without sorting every word a server has.
func topWords(freq map[string]int, n int) []string {
	before := func(w string, f int, than string) bool {
		if g := freq[than]; f != g {
			return f > g
		}
		return w < than
	}
	top := make([]string, 0, min(n, len(freq)))
	for w, f := range freq {
		if len(top) == n && !before(w, f, top[n-1]) {
			continue
		}
		i := len(top)
		if i < n {
			top = append(top, "")
		} else {
			i = n - 1
		}
		for ; i > 0 && before(w, f, top[i-1]); i-- {
			top[i] = top[i-1]
		}
		top[i] = w
	}
	return top
}

// blurbStop are verbs too common to say anything about a server.
var blurbStop = map[string]bool{"get": true, "list": true, "create": true, "update": true, "delete": true, "set": true,
	"add": true, "remove": true, "read": true, "write": true, "search": true, "the": true, "and": true, "for": true, "tool": true}

// ResultLine is one search result: name, purpose, key parameters, hints.
func ResultLine(e *catalog.Tool) string {
	line := "- " + e.Name
	t := e.CacheTool()
	if p := textcut.FirstLine(FirstNonEmpty(t.Description, t.Title), PurposeLen); p != "" {
		line += ": " + p
	}
	if params := keyParams(t.InputSchema, 5); params != "" {
		line += " (" + params + ")"
	}
	if h := catalog.Hints(t.Annotations); len(h) > 0 {
		line += " [" + strings.Join(h, ", ") + "]"
	}
	return line + "\n"
}

// keyParams lists up to n parameter names, required ones first and marked with *.
func keyParams(schema json.RawMessage, n int) string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return ""
	}
	req := map[string]bool{}
	var out []string
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; ok && !req[r] {
			req[r] = true
			out = append(out, r+"*")
		}
	}
	var rest []string
	for p := range s.Properties {
		if !req[p] {
			rest = append(rest, p)
		}
	}
	sort.Strings(rest)
	out = append(out, rest...)
	more := ""
	if len(out) > n {
		more = fmt.Sprintf(", +%d", len(out)-n)
		out = out[:n]
	}
	return strings.Join(out, ", ") + more
}

// FirstNonEmpty is the first of ss that is not blank ("" when all are).
func FirstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// CompactSchema shortens a JSON schema for display: property descriptions trimmed, long
// enums cut, noise keywords ($schema, examples, default titles) dropped. If the result is
// still over budget, nested detail is dropped, then only property names and types remain.
func CompactSchema(raw json.RawMessage, budget int) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return `{"type":"object"}`
	}
	for _, depth := range []int{4, 2, 1} {
		out, _ := plainjson.Marshal(compactNode(v, depth))
		if len(out) <= budget {
			return string(out)
		}
	}
	out, _ := plainjson.Marshal(compactNode(v, 0))
	return textcut.Truncate(string(out), budget)
}

func compactNode(v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, val := range m {
		switch k {
		case "$schema", "examples", "title", "$id", "$comment", "additionalProperties":
			continue
		case "description":
			if s, ok := val.(string); ok && depth > 0 {
				out[k] = textcut.FirstLine(s, propDescLen)
			}
		case "enum":
			if arr, ok := val.([]any); ok && len(arr) > 12 {
				out[k] = append(arr[:12:12], "…")
			} else {
				out[k] = val
			}
		case "properties":
			props, ok := val.(map[string]any)
			if !ok {
				continue
			}
			np := map[string]any{}
			for name, p := range props {
				if depth <= 0 {
					if pm, ok := p.(map[string]any); ok {
						np[name] = map[string]any{"type": pm["type"]}
						continue
					}
				}
				np[name] = compactNode(p, depth-1)
			}
			out[k] = np
		case "items", "anyOf", "oneOf", "allOf", "$defs", "definitions":
			if depth <= 0 {
				continue
			}
			out[k] = compactAny(val, depth-1)
		default:
			out[k] = val
		}
	}
	return out
}

func compactAny(v any, depth int) any {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = compactNode(x, depth)
		}
		return out
	case map[string]any:
		if _, isSchema := t["type"]; isSchema || depth < 0 {
			return compactNode(t, depth)
		}
		out := map[string]any{}
		for k, x := range t {
			out[k] = compactNode(x, depth)
		}
		return out
	}
	return v
}

// ExampleCall builds a one-line example call with placeholder values for required params.
func ExampleCall(server string, t *cache.Tool) string {
	var s struct {
		Properties map[string]struct {
			Type any   `json:"type"`
			Enum []any `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(t.InputSchema, &s)
	args := map[string]any{}
	for _, r := range s.Required {
		p := s.Properties[r]
		switch {
		case len(p.Enum) > 0:
			args[r] = p.Enum[0]
		case p.Type == "number" || p.Type == "integer":
			args[r] = 1
		case p.Type == "boolean":
			args[r] = true
		case p.Type == "array":
			args[r] = []any{}
		case p.Type == "object":
			args[r] = map[string]any{}
		default:
			args[r] = "<" + r + ">"
		}
	}
	out, _ := plainjson.Marshal(map[string]any{"server": server, "tool": t.Name, "arguments": args})
	return string(out)
}
