package query

import (
	"slices"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/search/lexicon"
	"github.com/zot-mcp/mcp-bridge/search/token"
	"github.com/zot-mcp/mcp-bridge/search/words"
)

// TestQueryWordOrigins checks that every term derived from a query word (its
// synonyms, abbreviations and intents) carries that word's coverage bit, and
// only terms of a phrase carry the bits of all its words.
func TestQueryWordOrigins(t *testing.T) {
	t.Parallel()
	terms, _ := analyseQuery("rm the repo sea level", map[string]int32{})
	want := map[string]uint64{
		"rm": 1, "remove": 1, "delete": 1, // rm → remove, delete
		"repo": 2, "repository": 2,
		"sea": 4, "level": 8, "elevation": 4 | 8, // the phrase "sea level"
	}
	got := map[string]uint64{}
	for _, q := range terms {
		got[q.Text] = q.Origin
	}
	for term, bits := range want {
		if got[term] != bits {
			t.Errorf("term %q: origin %b, want %b (all: %v)", term, got[term], bits, got)
		}
	}
}

func TestLemma(t *testing.T) {
	t.Parallel()
	known := func(s string) bool {
		switch s {
		case "run", "change", "copy", "stop", "crash", "stag":
			return true
		}
		return false
	}
	for w, want := range map[string]string{
		"running": "run", "changed": "change", "copied": "copy", "stopped": "stop",
		"crashing": "crash", "changing": "change", "sing": "", "walked": "", "red": "",
	} {
		if got := lemma(w, known); got != want {
			t.Errorf("lemma(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestIntentTableMergesAlikeKeys: intent keys that analyse to the same words
// ("hour", "hours") keep the words of both, whatever the map order.
func TestIntentTableMergesAlikeKeys(t *testing.T) {
	t.Parallel()
	got := lexiconTables().intents.get("hour")
	for _, w := range append(slices.Clone(lexicon.Intents()["hour"]), lexicon.Intents()["hours"]...) {
		if !slices.Contains(got, token.Singular(w)) {
			t.Errorf("intents[hour] = %v, lacks %q", got, w)
		}
	}
}

func TestIdentShape(t *testing.T) {
	t.Parallel()
	for w, want := range map[string]string{
		"db-1": "name", "us-east-1": "name", "worker_2": "name", "config:flags": "name",
		"#ops": "channel", "@maria": "user", "(db-1)": "name",
		"ENG-42": "issue", "PROJ-1234": "issue", "eng-42": "name", "A-1": "name", "ENG-": "",
		"-la": "command", "--force": "command", "--dry-run": "command", "-": "", "--": "", "-9": "",
		"database": "", "k8s": "", "a11y": "", "-v": "", "re-run": "", "v2": "", "#": "",
	} {
		if got := identShape(w); got != want {
			t.Errorf("identShape(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestQueryShapes: a question reads whatever verb it uses, and the words
// inside a file name or identifier expand no more strongly than they count.
func TestQueryShapes(t *testing.T) {
	t.Parallel()
	weightOf := func(q, term string) float64 {
		terms, _ := analyseQuery(q, map[string]int32{})
		for _, qt := range terms {
			if qt.Text == term {
				return qt.Weight
			}
		}
		return 0
	}
	if _, v := analyseQuery("remember that bob likes tea", nil); v&words.VCreate == 0 {
		t.Errorf("command: verbs %b lack create", v)
	}
	if _, v := analyseQuery("what do you remember about bob", nil); v != words.VGet|words.VList|words.VSearch {
		t.Errorf("question: verbs %b, want get|list|search", v)
	}
	for _, tt := range []struct {
		q, term string
		max     float64
	}{
		{"show config.txt", "configuration", shapedWordWeight * words.AbbrevWeight},
		{"restart db-1", "database", shapedWordWeight * words.AbbrevWeight},
		{"post to #ops", "channel", shapeWeight},
	} {
		if w := weightOf(tt.q, tt.term); w == 0 || w > tt.max+1e-9 {
			t.Errorf("%q: term %q weighs %.2f, want (0, %.2f]", tt.q, tt.term, w, tt.max)
		}
	}
	if w, c := weightOf("what do you remember about bob", "create"), weightOf("remember bob", "create"); w == 0 || w >= c {
		t.Errorf("a question weighs the create that remember stands for %.2f, a command %.2f", w, c)
	}
	if w := weightOf("open the config", "configuration"); w != words.AbbrevWeight {
		t.Errorf("a plain word expands at %.2f, want %.2f", w, words.AbbrevWeight)
	}
}

func TestValueShape(t *testing.T) {
	t.Parallel()
	for w, want := range map[string]string{
		"40.7128,": "coordinate", "-74.0060": "coordinate", "9am": "time", "11:30pm": "time",
		"14:30": "time", "2024-05-01": "date", "v1.2.0": "version", "v2.1": "version", "2.0.1": "version",
		"2.1": "", "1.5": "", "9": "", "am": "", "123:45": "", "report.pdf": "", "2024-05": "", "v2": "", "1.2.x": "",
	} {
		got := ""
		if ws := valueShape(w); ws != nil {
			got = ws[0]
		}
		if got != want {
			t.Errorf("valueShape(%q) = %v, want %q first", w, valueShape(w), want)
		}
	}
}

// analyseQuery is Analyse in a fresh Analyser, with no idf.
func analyseQuery(q string, vocab map[string]int32) ([]Term, uint16) {
	return new(Analyser).Analyse(q, vocab, nil)
}

// repeatGrowth returns how many more allocations one Analyser's reading of
// lead followed by words twenty times takes than of lead and words twice:
// what repeating words costs once the Analyser is warm.
func repeatGrowth(vocab map[string]int32, idf []float64, lead string) func(words string) float64 {
	var s Analyser
	allocs := func(words string, n int) float64 {
		q := lead + strings.Repeat(words, n)
		s.Analyse(q, vocab, idf) // warm the Analyser's maps and slices
		return testing.AllocsPerRun(20, func() { s.Analyse(q, vocab, idf) })
	}
	return func(words string) float64 { return allocs(words, 20) - allocs(words, 2) }
}

// termWeights is the weight of each term a fresh Analyser reads in q.
func termWeights(q string, vocab map[string]int32, idf []float64) map[string]float64 {
	terms, _ := new(Analyser).Analyse(q, vocab, idf)
	weight := make(map[string]float64, len(terms))
	for _, t := range terms {
		weight[t.Text] = t.Weight
	}
	return weight
}

// TestBigramQueryTerms: a long request in a script read as bigrams keeps
// one term per distinct bigram, each standing for one original word.
func TestBigramQueryTerms(t *testing.T) {
	var b strings.Builder
	for i := range 10000 {
		b.WriteRune(rune(0x4E00 + i*7919%20000))
	}
	long := b.String()
	terms, _ := analyseQuery(long, map[string]int32{})
	if len(terms) != 9999 {
		t.Errorf("analyseQuery of 10,000 distinct characters has %d terms, want 9999", len(terms))
	}
}
