package thesaurus

import (
	"slices"
	"strings"
	"testing"
)

func words(e Entry, r Relation) []string { return slices.Collect(e.Words(r)) }

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		word       string
		found      bool
		base, with []string // Base is exactly base; Synonym contains every word of with
		without    []string // Synonym contains none of these
	}{
		{word: "quickly", found: true, with: []string{"rapidly", "speedily"}},
		{word: "mend", found: true, with: []string{"repair", "fix"}},
		{word: "vanish", found: true, with: []string{"disappear"}},
		{word: "purchase", found: true, with: []string{"buy"}},
		{word: "buy", found: true, with: []string{"purchase"}},
		// Irregular forms name their base form.
		{word: "ran", found: true, base: []string{"run"}},
		{word: "went", found: true, base: []string{"go"}},
		{word: "children", found: true, base: []string{"child"}},
		// A synonym only by a rare sense of one of the two words is left
		// out: a tower is a column only in a rare sense of "column".
		{word: "tower", found: true, without: []string{"column", "pillar"}},
		// The first and the last key, and words the table does not hold.
		{word: strings.SplitN(table, "\t", 2)[0], found: true},
		{word: lastKey(), found: true},
		{word: "", found: false},
		{word: "a", found: false},
		{word: "zzzzzz", found: false},
		{word: "quickl", found: false},   // a prefix of a key
		{word: "quicklyy", found: false}, // a key as prefix
		{word: "Quickly", found: false},  // keys are lower case
	}
	for _, tt := range tests {
		e, ok := Lookup(tt.word)
		if ok != tt.found {
			t.Errorf("Lookup(%q) found = %v, want %v", tt.word, ok, tt.found)
			continue
		}
		if !ok {
			if e != (Entry{}) {
				t.Errorf("Lookup(%q) = %+v, want the zero Entry", tt.word, e)
			}
			continue
		}
		if tt.base != nil && !slices.Equal(words(e, Base), tt.base) {
			t.Errorf("Lookup(%q) base forms = %v, want %v", tt.word, words(e, Base), tt.base)
		}
		syn := words(e, Synonym)
		for _, w := range tt.with {
			if !slices.Contains(syn, w) {
				t.Errorf("Lookup(%q) synonyms = %v, want %q among them", tt.word, syn, w)
			}
		}
		for _, w := range tt.without {
			if slices.Contains(syn, w) {
				t.Errorf("Lookup(%q) synonyms = %v, want no %q", tt.word, syn, w)
			}
		}
	}
}

func lastKey() string {
	last := table[strings.LastIndexByte(strings.TrimSuffix(table, "\n"), '\n')+1:]
	return strings.SplitN(last, "\t", 2)[0]
}

func TestLookupForm(t *testing.T) {
	t.Parallel()
	tests := []struct{ word, key string }{
		{"quickly", "quickly"},  // a key itself
		{"repairs", "repair"},   // -s
		{"repairing", "repair"}, // -ing
		{"vanished", "vanish"},  // -ed
		{"purchases", "purchase"},
		{"purchased", "purchase"}, // -ed → -e
		{"ran", "ran"},            // an irregular form is its own key
		{"zzzzzzing", ""},
		{"s", ""},
		{"ing", ""},
	}
	for _, tt := range tests {
		e, ok := LookupForm(tt.word)
		want, wantOK := Lookup(tt.key)
		if ok != wantOK || e != want {
			t.Errorf("LookupForm(%q) = %q, %v; want the entry of %q", tt.word, e.line, ok, tt.key)
		}
	}
}

// TestTableWellFormed: every line is a key and one field per relation, keys
// strictly ascending (what the binary search needs), every word a single
// lower-case word other than its key, and every key is found.
func TestTableWellFormed(t *testing.T) {
	t.Parallel()
	if len(table) == 0 || table[len(table)-1] != '\n' {
		t.Fatal("the table is empty or does not end with a new line")
	}
	prev := ""
	n := 0
	for line := range strings.SplitSeq(strings.TrimSuffix(table, "\n"), "\n") {
		n++
		f := strings.Split(line, "\t")
		if len(f) != int(Synonym)+2 {
			t.Fatalf("line %d %q: %d fields, want %d", n, line, len(f), int(Synonym)+2)
		}
		key := f[0]
		if !PlainWord(key) {
			t.Fatalf("line %d: key %q is not a single lower-case word", n, key)
		}
		if key <= prev {
			t.Fatalf("line %d: key %q does not sort after %q", n, key, prev)
		}
		prev = key
		if f[1] == "" && f[2] == "" {
			t.Errorf("line %d: key %q relates to nothing", n, key)
		}
		for _, field := range f[1:] {
			if field == "" {
				continue
			}
			for _, w := range strings.Split(field, " ") {
				if !PlainWord(w) || w == key {
					t.Errorf("line %d: key %q has word %q", n, key, w)
				}
			}
		}
		if e, ok := Lookup(key); !ok || e.line != line {
			t.Fatalf("Lookup(%q) = %q, %v; want its line", key, e.line, ok)
		}
	}
	if n < 5000 {
		t.Errorf("the table has %d keys, want a general-English table of thousands", n)
	}
}

func TestLookupAllocatesNothing(t *testing.T) {
	for _, w := range []string{"quickly", "zzzzzz", "purchased", "repairing"} {
		if a := testing.AllocsPerRun(100, func() {
			e, _ := LookupForm(w)
			for range e.Words(Synonym) {
			}
		}); a != 0 {
			t.Errorf("LookupForm(%q) and its words allocate %v times, want 0", w, a)
		}
	}
}
