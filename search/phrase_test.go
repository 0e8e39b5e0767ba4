package search

import (
	"slices"
	"testing"

	"github.com/zot-mcp/mcp-bridge/search/query"
	"github.com/zot-mcp/mcp-bridge/search/token"
)

// TestPhrases shows the word-order and proximity rescoring: each case has
// two tools with the same words (so BM25F and every other signal score
// them alike, and the tie goes to the lower ID, mcp__north__…), of which
// the one on server south holds the query's words side by side and in
// order. Without the rescoring north comes first in every case but the
// last, which shows that a tool's name and its first sentence are not read
// as one run of words.
func TestPhrases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, query  string
		north, south Doc
		first        string // server of the expected first hit
	}{
		{
			name:  "adjacent in the first sentence",
			query: "reverse geocode an address",
			north: mk("north", "lookup", "Geocode an address, or reverse a list of results."),
			south: mk("south", "lookup", "Reverse geocode an address, or a list of results."),
			first: "south",
		},
		{
			name:  "near each other rather than far apart",
			query: "console messages",
			north: mk("north", "read", "Console output of the server with timestamps, levels and messages."),
			south: mk("south", "read", "Console messages of the server with timestamps, levels and output."),
			first: "south",
		},
		{
			name:  "in order rather than reversed",
			query: "list merge request notes",
			north: mk("north", "notes", "Notes request merge list."),
			south: mk("south", "notes", "List merge request notes."),
			first: "south",
		},
		{
			name:  "word order in the name",
			query: "console messages",
			north: mk("north", "messages_console", "Read what the page printed."),
			south: mk("south", "console_messages", "Read what the page printed."),
			first: "south",
		},
		{
			name:  "a query word between the pair",
			query: "reverse quickly geocode",
			north: mk("north", "lookup", "Geocode places and reverse lists of results."),
			south: mk("south", "lookup", "Reverse and geocode places, lists of results."),
			first: "south",
		},
		{
			name:  "the name does not run on into the first sentence",
			query: "console messages",
			north: mk("north", "show_messages", "Console it shows."),
			south: mk("south", "show_console", "Messages it shows."),
			first: "north",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := []Doc{
				tt.north, tt.south,
				mk("other", "weather", "Get the weather forecast for a city."),
				mk("other", "translate", "Translate text into another language."),
			}
			hits := New(docs).Search(tt.query, 5)
			if len(hits) < 2 {
				t.Fatalf("Search(%q) = %v, want both tools", tt.query, ids(docs, hits))
			}
			if got := docs[hits[0].Doc].Server; got != tt.first {
				t.Errorf("Search(%q) = %v, want %s's tool first", tt.query, ids(docs, hits), tt.first)
			}
			wantDescending(t, tt.query, hits)
		})
	}
}

// TestPhraseIndexOf checks that every doc's phrase words are found where
// they were recorded, across several strides of docs, and that term ids too
// large for 16 bits become noPhraseTerm.
func TestPhraseIndexOf(t *testing.T) {
	t.Parallel()
	var docs []Doc
	for i := 0; i < 3*phraseStride+5; i++ {
		desc := "Fetch the " + itoa(i) + " widgets. Then more."
		if i%3 == 0 {
			desc = ""
		}
		docs = append(docs, mk("s"+itoa(i%4), "get_item_"+itoa(i), desc))
	}
	ix := New(docs)
	for d, doc := range docs {
		name, purpose := ix.phrases.of(int32(d))
		var wantName, wantPurpose []uint16
		for _, w := range tokens(doc.Tool) {
			wantName = append(wantName, uint16(ix.vocab[w]))
		}
		for _, w := range tokens(firstSentence(doc.Description)) {
			wantPurpose = append(wantPurpose, uint16(ix.vocab[w]))
		}
		if !slices.Equal(name, wantName) || !slices.Equal(purpose, wantPurpose) {
			t.Errorf("doc %d (%s): phrases %v | %v, want %v | %v", d, doc.Tool, name, purpose, wantName, wantPurpose)
		}
	}

	var pi phraseIndex
	pi.addPhrases(&shardPhrases{terms: []int32{0, 1, 2}, lens: [][2]uint8{{1, 2}}}, []int32{7, noPhraseTerm, 1 << 20})
	pi.finish()
	name, purpose := pi.of(0)
	if !slices.Equal(name, []uint16{7}) || !slices.Equal(purpose, []uint16{noPhraseTerm, noPhraseTerm}) {
		t.Errorf("large term ids: phrases %v | %v, want [7] | [%d %d]", name, purpose, noPhraseTerm, noPhraseTerm)
	}
}

// BenchmarkPhraseRescore is the per-query cost of rescorePhrases over the
// best phraseDepth candidates of the benchmark queries at 1,000 tools, to
// set beside BenchmarkSearch/1000.
func BenchmarkPhraseRescore(b *testing.B) {
	ix := New(replicate(loadCatalog(b), 1000))
	type prepared struct {
		terms []query.Term
		ids   []int32
		best  []scored
	}
	var qs []prepared
	for _, q := range benchQueries {
		var sc scratch
		terms, _ := sc.query.Analyse(q, ix.vocab, nil)
		ids, _ := ix.termIDs(terms, &sc)
		p := prepared{terms: slices.Clone(terms), ids: slices.Clone(ids)}
		for _, h := range ix.Search(q, phraseDepth) {
			p.best = append(p.best, scored{doc: int32(h.Doc), score: h.Score, id: ix.docs[h.Doc].id})
		}
		qs = append(qs, p)
	}
	var ps phraseScratch
	c := make([]scored, phraseDepth)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := &qs[i%len(qs)]
		c = append(c[:0], p.best...)
		ix.rescorePhrases(&ps, p.terms, p.ids, c)
		i++
	}
}

// tokens is token.ForEachToken's words of s, camelCase words in parts only:
// it splits s into lower-case alphanumeric words, splitting
// snake_case, kebab-case, dotted.names and camelCase (including acronym
// runs such as "HTMLParser" → "html", "parser", and keeping plural
// acronyms such as "URLs" whole). Letters and digits stay together
// ("k8s", "base64"). Stop words are dropped and plurals folded to their
// singular. It is the analyser used for both documents and queries (the
// index also keeps each camelCase word whole, so "GitHub" is found as
// "github" as well as "git" "hub").
func tokens(s string) []string {
	var out []string
	token.ForEachToken(s, nil, func(t []byte, whole bool) {
		if !whole {
			out = append(out, string(t))
		}
	})
	return out
}
