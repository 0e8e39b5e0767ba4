package toolview

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
)

// TestDirectory: one entry per server, sorted, with its tool count and its most frequent
// distinctive name words (common verbs, short words and the server's own name left out).
func TestDirectory(t *testing.T) {
	refs := []catalog.ToolRef{
		{Server: "github", Tool: "create_issue"}, {Server: "github", Tool: "list_issues"},
		{Server: "github", Tool: "merge_pull_request"}, {Server: "github", Tool: "github_search"},
		{Server: "browser", Tool: "take_screenshot"},
	}
	got := Directory(refs)
	want := []DirEntry{
		{Server: "browser", Tools: 1, Words: []string{"screenshot", "take"}},
		{Server: "github", Tools: 4, Words: []string{"issue", "issues", "merge", "pull"}},
	}
	if len(got) != len(want) {
		t.Fatalf("Directory = %+v", got)
	}
	for i := range want {
		if got[i].Server != want[i].Server || got[i].Tools != want[i].Tools || !slices.Equal(got[i].Words, want[i].Words) {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestCompactSchema: noise keywords go, descriptions are cut to one line, and a schema
// over budget loses nested detail before it is cut.
func TestCompactSchema(t *testing.T) {
	long := strings.Repeat("word ", 100)
	schema := `{"$schema":"x","type":"object","title":"T","properties":{"q":{"type":"string","description":"` + long + `"},` +
		`"deep":{"type":"object","properties":{"inner":{"type":"object","properties":{"leaf":{"type":"string","description":"leaf"}}}}}}}`
	cases := []struct {
		name   string
		budget int
		has    []string
		hasNot []string
	}{
		{"roomy", 2000, []string{`"q"`, `"leaf"`}, []string{"$schema", `"title"`}},
		{"tight", 120, []string{`"q"`, `"deep"`}, []string{`"leaf"`, "$schema"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := CompactSchema(json.RawMessage(schema), tc.budget)
			if len(got) > tc.budget+len("…") {
				t.Errorf("%d bytes over a budget of %d: %s", len(got), tc.budget, got)
			}
			for _, s := range tc.has {
				if !strings.Contains(got, s) {
					t.Errorf("lacks %s: %s", s, got)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(got, s) {
					t.Errorf("keeps %s: %s", s, got)
				}
			}
		})
	}
}

// TestExampleCall: required parameters get a placeholder of their type (an enum's first
// value), optional ones are left out.
func TestExampleCall(t *testing.T) {
	tool := cache.Tool{Name: "search", InputSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"q":{"type":"string"},"n":{"type":"integer"},"mode":{"enum":["fast","slow"]},"opt":{"type":"string"}},"required":["q","n","mode"]}`)}
	// The placeholder reads as <q>: HTML escaping would show the model \u003cq\u003e.
	want := `{"arguments":{"mode":"fast","n":1,"q":"<q>"},"server":"s","tool":"search"}`
	if got := ExampleCall("s", &tool); got != want {
		t.Fatalf("ExampleCall = %s, want %s", got, want)
	}
}

// TestNamespaceText: a namespace's description is the server's directory line and its MCP
// instructions on one line, its instructions the user's trimmed, each cut to
// NamespaceTextMax (every tool's frame repeats them).
func TestNamespaceText(t *testing.T) {
	long := strings.Repeat("word ", 200)
	tests := []struct {
		name  string
		d     DirEntry
		instr string
		want  string
	}{
		{"words and instructions", DirEntry{Server: "gh", Tools: 26, Words: []string{"issue", "pull"}}, "Use it\n\nfor  GitHub.",
			"MCP server gh: 26 tools (issue, pull). Use it for GitHub."},
		{"one tool, no words", DirEntry{Server: "x", Tools: 1}, "", "MCP server x: 1 tool."},
		// A cache entry written before the session sanitized instructions holds them as sent.
		{"hidden characters", DirEntry{Server: "x", Tools: 1}, "Use\x1b]52;c;eA==\x07 it\u200b.", "MCP server x: 1 tool. Use]52;c;eA== it."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NamespaceDescription(tc.d, tc.instr); got != tc.want {
				t.Errorf("NamespaceDescription = %q, want %q", got, tc.want)
			}
		})
	}
	if got := NamespaceDescription(DirEntry{Server: "gh", Tools: 2}, long); len(got) > NamespaceTextMax || !strings.HasSuffix(got, "…") {
		t.Errorf("long description not cut to %d bytes: %d", NamespaceTextMax, len(got))
	}
	if got := NamespaceInstructions("  " + long); len(got) > NamespaceTextMax || !strings.HasPrefix(got, "word word") {
		t.Errorf("long instructions not trimmed and cut to %d bytes: %q", NamespaceTextMax, got)
	}
	if got := NamespaceInstructions(" Prefer\x1b[2J x\u202e. "); got != "Prefer[2J x." {
		t.Errorf("instructions with hidden characters give %q", got)
	}
	if got := NamespaceInstructions(" \n "); got != "" {
		t.Errorf("blank instructions give %q", got)
	}
}

// directoryBySort is Directory as it was first written (every word of a server sorted,
// each name split by strings.FieldsFunc): the definition Directory must keep to.
func directoryBySort(refs []catalog.ToolRef) []DirEntry {
	per := map[string]map[string]int{}
	tools := map[string]int{}
	for _, r := range refs {
		if per[r.Server] == nil {
			per[r.Server] = map[string]int{}
		}
		tools[r.Server]++
		seen := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(r.Tool), func(c rune) bool { return c < 'a' || c > 'z' }) {
			if len(w) < 3 || blurbStop[w] || strings.Contains(r.Server, w) || seen[w] {
				continue
			}
			seen[w] = true
			per[r.Server][w]++
		}
	}
	var out []DirEntry
	for server, freq := range per {
		var words []string
		for w := range freq {
			words = append(words, w)
		}
		slices.SortFunc(words, func(a, b string) int {
			if freq[a] != freq[b] {
				return freq[b] - freq[a]
			}
			return strings.Compare(a, b)
		})
		if len(words) > 4 {
			words = words[:4]
		}
		out = append(out, DirEntry{Server: server, Tools: tools[server], Words: words})
	}
	slices.SortFunc(out, func(a, b DirEntry) int { return strings.Compare(a.Server, b.Server) })
	return out
}

// TestDirectoryMatchesSort: Directory's entries are those of sorting every word, for
// names ASCII or not (a Kelvin sign lowers to k, a dotted capital I to i and a combining
// dot), upper case, digits and punctuation, ties broken in byte order, and servers with
// fewer words than are shown.
func TestDirectoryMatchesSort(t *testing.T) {
	many := func(server string, n int) []catalog.ToolRef {
		var refs []catalog.ToolRef
		verbs := []string{"fetch", "Parse", "render", "merge", "ZIP", "Ünzip", "tag"}
		nouns := []string{"file", "page", "IMAGE", "row", "Row", "table", "bücher", "\u212Aelvin"}
		for i := range n {
			refs = append(refs, catalog.ToolRef{Server: server,
				Tool: verbs[i%len(verbs)] + "_" + nouns[(i*3+i/7)%len(nouns)] + "-" + strings.Repeat("x", i%5) + "9v2"})
		}
		return refs
	}
	cases := []struct {
		name string
		refs []catalog.ToolRef
	}{
		{"none", nil},
		{"no words", []catalog.ToolRef{{Server: "s", Tool: "a_b"}, {Server: "s", Tool: "get"}}},
		{"ties in byte order", []catalog.ToolRef{{Server: "s", Tool: "zeta_beta"}, {Server: "s", Tool: "alpha_gamma"},
			{Server: "s", Tool: "delta"}, {Server: "s", Tool: "omega_epsilon"}}},
		{"frequency first", []catalog.ToolRef{{Server: "s", Tool: "zzz_aaa"}, {Server: "s", Tool: "zzz_bbb"},
			{Server: "s", Tool: "yyy_ccc"}, {Server: "s", Tool: "yyy_zzz"}, {Server: "s", Tool: "xxx"}, {Server: "s", Tool: "www"}}},
		{"upper case and digits", []catalog.ToolRef{{Server: "s", Tool: "GetRepoInfo2"}, {Server: "s", Tool: "repo.info"},
			{Server: "s", Tool: "REPO__list9items"}, {Server: "s", Tool: "-items-"}}},
		{"not ascii", []catalog.ToolRef{{Server: "s", Tool: "\u212Aelvin_kelvin"}, {Server: "s", Tool: "\u0130nfo_info"},
			{Server: "s", Tool: "größe_abc"}, {Server: "s", Tool: "日本_map"}, {Server: "s", Tool: "bad\xffbyte"}}},
		{"server name words", []catalog.ToolRef{{Server: "github", Tool: "github_issue"}, {Server: "github", Tool: "hub_issue"}}},
		{"many servers and words", append(append(many("alpha", 300), many("beta", 41)...), many("gamma", 3)...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, want := Directory(c.refs), directoryBySort(c.refs)
			if len(got) != len(want) {
				t.Fatalf("Directory = %+v, want %+v", got, want)
			}
			for i := range want {
				if got[i].Server != want[i].Server || got[i].Tools != want[i].Tools || !slices.Equal(got[i].Words, want[i].Words) {
					t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
				}
			}
		})
	}
}
