package query

import (
	"strings"
	"testing"
)

// longGermanRequest is a German request of n distinct unknown words of 40
// letters, each ending as an inflected word does: every one is a candidate
// compound.
func longGermanRequest(n int) string {
	var b strings.Builder
	b.WriteString("und ")
	for i := range n {
		w := []byte(strings.Repeat("x", 33) + "adomelo")
		for j, k := 0, i; j < 4; j, k = j+1, k/26 {
			w[j] = byte('a' + k%26)
		}
		b.Write(w)
		b.WriteByte(' ')
	}
	return b.String()
}

// TestCompoundReadingIsBounded: however many unknown words a German
// request holds (a pasted log), only a few of them are read as compounds,
// so that the cost of a long request stays bounded.
func TestCompoundReadingIsBounded(t *testing.T) {
	t.Parallel()
	const words, most = 500, 16
	var a Analyser
	a.Analyse(longGermanRequest(words), map[string]int32{}, nil)
	if a.compounds > most {
		t.Errorf("read %d of %d words as compounds, want at most %d", a.compounds, words, most)
	}
	if a.compounds == 0 {
		t.Error("read no word as a compound: the request is not read as German")
	}
}

// TestInflectionMissAllocatesNothing: trying a word's inflections against
// the lexicon allocates nothing when none reaches a key, so that the
// unknown words of a long request cost no garbage.
func TestInflectionMissAllocatesNothing(t *testing.T) {
	c := lexiconTables().concepts
	buf := make([]byte, 0, 64)
	w := strings.Repeat("q", 30) + "adomelo"
	if n := testing.AllocsPerRun(100, func() { c.inflected(w, anyLatinLang, &buf) }); n != 0 {
		t.Errorf("inflected(%q) allocates %v times, want 0", w, n)
	}
}

// TestInflectionsKeepToTheirLanguage: an inflection rule is tried only in
// a request read as its language (conto is Italian, not a Spanish
// preterite of contar), and the German participle prefix only on a word
// that ends as a participle (Gespräch is no ge-participle of sprechen).
func TestInflectionsKeepToTheirLanguage(t *testing.T) {
	t.Parallel()
	c := lexiconTables().concepts
	var buf []byte
	tests := []struct {
		word  string
		langs latinLang
		want  string
	}{
		{"busque", langES, "buscar"},
		{"busque", langIT, ""},
		{"gespeichert", langDE, "speichern"},
		{"gesprach", langDE, ""},
		{"envoyez", langFR, "envoyer"},
		{"envoyez", langDE, ""},
	}
	for _, tt := range tests {
		if got := c.inflected(tt.word, tt.langs, &buf); got != tt.want {
			t.Errorf("inflected(%q, %b) = %q, want %q", tt.word, tt.langs, got, tt.want)
		}
	}
}

// TestRussianPrefixReachesOnlyVerbs: a Russian word is read without its
// aspect prefix, or a verb ending cut off, only where that reaches a stem
// of an English verb and the word ends as a verb does: подождать is to
// wait, not rain; выключить to switch off, not a key; голосовать to vote,
// not a voice.
func TestRussianPrefixReachesOnlyVerbs(t *testing.T) {
	t.Parallel()
	c := lexiconTables().concepts
	tests := []struct{ word, want string }{
		{"закоммитить", "коммит"},
		{"подождите", ""},
		{"выключить", ""},
		{"исключить", ""},
		{"голосовать", ""},
	}
	for _, tt := range tests {
		if got := c.stemKey(tt.word); got != tt.want {
			t.Errorf("stemKey(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

// TestLatinEvidence: a request is read as a Latin language on words that
// show it strongly enough together; a word English spells too (a marker
// such as "os" or "con", a lexicon key such as "pasta") is not enough
// alone, and Italian "i" beside an Italian word is no English "I".
func TestLatinEvidence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query string
		want  bool
	}{
		{"os environment variables", false},
		{"con artist", false},
		{"pour water", false},
		{"el capitan macos", false},
		{"São Paulo weather", false},
		{"pasta recipe", false},
		{"costa rica weather", false},
		{"gib", false},
		{"der Datei", true},
		{"lea el archivo", true},
		{"elimina i messaggi vecchi", true},
		{"can i delete the file", false},
	}
	for _, tt := range tests {
		var a Analyser
		a.reset(map[string]int32{}, nil)
		a.readChunks(tt.query)
		if got, _ := a.readsLatin(); got != tt.want {
			t.Errorf("readsLatin(%q) = %v, want %v", tt.query, got, tt.want)
		}
	}
}

// BenchmarkAnalyseLongGerman measures the analysis of a long German
// request of unknown words, each a candidate compound.
func BenchmarkAnalyseLongGerman(b *testing.B) {
	q := longGermanRequest(500)
	var a Analyser
	vocab := map[string]int32{}
	for b.Loop() {
		a.Analyse(q, vocab, nil)
	}
}

// TestRepeatedForeignWordIsReadOnce: a foreign word a request repeats (a
// pasted log, a list) is read through the lexicon once, not at each
// occurrence: repeating a cognate, a verb read without its again prefix and
// a candidate compound costs no more allocations per repeat than repeating
// words of the same lengths that nothing reads.
func TestRepeatedForeignWordIsReadOnce(t *testing.T) {
	vocab := map[string]int32{"activity": 0, "recent": 1, "board": 2, "schedule": 3, "reschedule": 4}
	growth := repeatGrowth(vocab, nil, "muestra la ")
	foreign, plain := growth("actividad reprogramada tableroviejo "), growth("zzzzzzzzz xxxxxxxxxxxx wwwwwwwwwwww ")
	if foreign > plain {
		t.Errorf("repeating foreign words 18 more times costs %v more allocations, words nothing reads %v: want no more", foreign, plain)
	}
}
