package words

import (
	"slices"
	"testing"
)

// TestExpansions: an abbreviation of one word expands both ways, one of
// several words one way; a strong synonym outweighs the same pair in a
// synonym group; no word expands to itself.
func TestExpansions(t *testing.T) {
	m := Expansions()
	find := func(from, to string) (Expansion, bool) {
		i := slices.IndexFunc(m[from], func(e Expansion) bool { return e.Term == to })
		if i < 0 {
			return Expansion{}, false
		}
		return m[from][i], true
	}
	tests := []struct {
		from, to string
		want     Expansion
		found    bool
	}{
		{"repo", "repository", Expansion{"repository", AbbrevWeight, true}, true},
		{"repository", "repo", Expansion{"repo", AbbrevWeight, true}, true},
		{"pr", "pull", Expansion{"pull", AbbrevWeight, true}, true},
		{"pull", "pr", Expansion{}, false},
		{"remove", "delete", Expansion{"delete", AbbrevWeight, false}, true},
		{"drop", "erase", Expansion{"erase", SynonymWeight, false}, true},
		{"delete", "delete", Expansion{}, false},
		{"direction", "route", Expansion{"route", SynonymWeight, false}, true}, // listed as "directions": keys are singular
	}
	for _, tt := range tests {
		got, ok := find(tt.from, tt.to)
		if ok != tt.found || got != tt.want {
			t.Errorf("%s → %s: %+v (found %v), want %+v (found %v)", tt.from, tt.to, got, ok, tt.want, tt.found)
		}
	}
	if _, ok := m["directions"]; ok {
		t.Error("a plural key is in the table; keys are singular")
	}
}

func TestVerbTables(t *testing.T) {
	for _, tt := range []struct {
		w    string
		want uint16
	}{{"open", VCreate | VGet | VNavigate}, {"delete", VDelete}, {"banana", 0}} {
		if got := VerbClass(tt.w); got != tt.want {
			t.Errorf("VerbClass(%q) = %b, want %b", tt.w, got, tt.want)
		}
	}
	if objects, means, ok := PhrasalVerb("open"); !ok || means != "create" || !slices.Contains(objects, "issue") {
		t.Errorf("PhrasalVerb(open) = %v %q %v, want issue among the objects, create", objects, means, ok)
	}
	if _, _, ok := PhrasalVerb("get"); ok {
		t.Error("PhrasalVerb(get) is a phrasal verb")
	}
	for _, tt := range []struct {
		w               string
		prefix, generic bool
	}{{"kubectl", true, false}, {"server", false, true}, {"github", false, false}} {
		if NamePrefix(tt.w) != tt.prefix || GenericServerWord(tt.w) != tt.generic {
			t.Errorf("%q: NamePrefix %v, GenericServerWord %v; want %v, %v", tt.w, NamePrefix(tt.w), GenericServerWord(tt.w), tt.prefix, tt.generic)
		}
	}
}
