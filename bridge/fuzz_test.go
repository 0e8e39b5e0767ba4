package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// fuzzRefs turns "server\ttool" lines into refs.
func fuzzRefs(s string) []ToolRef {
	var refs []ToolRef
	for _, line := range strings.Split(s, "\n") {
		if server, tool, ok := strings.Cut(line, "\t"); ok {
			refs = append(refs, ToolRef{Server: server, Tool: tool})
		}
	}
	return refs
}

// FuzzAssignNames: for any two successive tool lists (a startup, then a refresh), every
// name is unique, at most 64 characters of [A-Za-z0-9_] starting with mcp__, a name given
// at startup stays with its tool after the refresh, and the same history gives the same
// names.
func FuzzAssignNames(f *testing.F) {
	f.Add("a\tx-y", "a\tx y\na\tx-y")
	f.Add("github\tcreate_issue\na-b\tx\na_b\tx", "a_b\tx\nsrv\tget-item\nsrv\tget_item")
	f.Add("s\t"+strings.Repeat("very_long_tool_name_", 5)+"1", "s\t"+strings.Repeat("very_long_tool_name_", 5)+"2")
	f.Add("a\tx y\na\tx-y", "a\tx_y_"+shortHash("a", "x-y"))
	f.Add("\t\n2fa\t\u00e9", "\t")
	f.Fuzz(func(t *testing.T, first, second string) {
		check := func(names map[ToolRef]string) {
			seen := map[string]ToolRef{}
			for ref, n := range names {
				if !validName.MatchString(n) || !strings.HasPrefix(n, Prefix) {
					t.Fatalf("%v got invalid name %q", ref, n)
				}
				if other, dup := seen[n]; dup {
					t.Fatalf("%v and %v share %q", ref, other, n)
				}
				seen[n] = ref
			}
		}
		n := NewNamer()
		a, _ := n.Assign(fuzzRefs(first))
		check(a)
		b, _ := n.Assign(fuzzRefs(second))
		check(b)
		for ref, name := range a {
			if got, ok := b[ref]; ok && got != name {
				t.Fatalf("%v moved from %q to %q", ref, name, got)
			}
		}
		// Names of both rounds together are unique too: a name is never given to two tools.
		all := map[string]ToolRef{}
		for _, m := range []map[ToolRef]string{a, b} {
			for ref, name := range m {
				if other, ok := all[name]; ok && other != ref {
					t.Fatalf("%q given to %v and %v", name, other, ref)
				}
				all[name] = ref
			}
		}
		again := NewNamer()
		a2, _ := again.Assign(fuzzRefs(first))
		b2, _ := again.Assign(fuzzRefs(second))
		for ref, name := range a {
			if a2[ref] != name {
				t.Fatalf("not deterministic: %v %q vs %q", ref, name, a2[ref])
			}
		}
		for ref, name := range b {
			if b2[ref] != name {
				t.Fatalf("not deterministic: %v %q vs %q", ref, name, b2[ref])
			}
		}
	})
}

// FuzzConvertResult: any tools/call result a server sends converts without a panic into
// content the host can take: every block typed, valid JSON when encoded, text within the
// budget (plus the truncation marker) and images within the media budget.
func FuzzConvertResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"audio","data":"eA==","mimeType":"audio/wav"}],"isError":true}`,
		`{"content":[{"type":"resource","resource":{"uri":"file:///x","text":"body"}},{"type":"resource_link","uri":"https://x","name":"n"}]}`,
		`{"content":[],"structuredContent":{"a":[1,2,{"b":null}]}}`,
		`{"content":[{"type":"text","text":"` + strings.Repeat("\u00e9", 3000) + `"}]}`,
		`{"content":[{"type":"mystery","x":1}]}`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	budget := Budget{Text: 4096, Media: 8192}
	f.Fuzz(func(t *testing.T, data []byte) {
		raw := json.RawMessage(data)
		res, err := mcp.ParseCallToolResult(&raw)
		if err != nil {
			return
		}
		out := ConvertResult(res, budget)
		if len(out.Content) == 0 {
			t.Fatal("no content")
		}
		text, media := 0, 0
		for _, c := range out.Content {
			switch c.Type {
			case "text":
				text += len(c.Text)
			case "image":
				media += len(c.Data)
			default:
				t.Fatalf("block of type %q", c.Type)
			}
		}
		if text > budget.Text+512 || media > budget.Media {
			t.Fatalf("over budget: %d bytes of text, %d of media", text, media)
		}
		if len(out.StructuredContent) > 0 && !json.Valid(out.StructuredContent) {
			t.Fatalf("structured content is not JSON: %q", out.StructuredContent)
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("cannot encode: %v", err)
		}
	})
}
