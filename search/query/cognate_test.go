package query

import "testing"

// TestForeignWordIsReadAsItsEnglishCognate: a Latinate word of a request
// read as Spanish, Portuguese, French or German that the lexicon lacks is
// read as the English word with the English ending, where the index knows
// it, at less than a key's weight; German k is tried as c. The guard row
// is a short word that would meet an unrelated English one by its ending.
func TestForeignWordIsReadAsItsEnglishCognate(t *testing.T) {
	t.Parallel()
	vocab := map[string]int32{}
	for i, w := range []string{
		"activity", "recent", "automatic", "security", "dependency", "category",
		"board", "task", "dent", "export", "visibility", "frequency",
	} {
		vocab[w] = int32(i)
	}
	tests := []struct {
		lang, query string
		want, not   []string
	}{
		{"es", "actividad reciente del tablero", []string{"activity", "recent"}, nil},
		{"es", "las actividades de la tarea", []string{"activity"}, nil},
		{"de", "die Aktivität der Kategorie", []string{"activity", "category"}, nil},
		{"de", "automatisch exportieren", []string{"automatic"}, nil},
		{"fr", "la visibilité du projet", []string{"visibility"}, nil},
		{"pt", "a frequência das tarefas", []string{"frequency"}, nil},
		// Guard.
		{"es", "el diente está roto", nil, []string{"dent"}},
	}
	for _, tt := range tests {
		got := termWeights(tt.query, vocab, nil)
		for _, w := range tt.want {
			if wt, ok := got[w]; !ok || wt > cognateWeight {
				t.Errorf("[%s] %q: %q weighs %v, want a term of at most %v (terms %v)", tt.lang, tt.query, w, wt, cognateWeight, got)
			}
		}
		for _, w := range tt.not {
			if _, ok := got[w]; ok {
				t.Errorf("[%s] %q: has %q of a misreading (terms %v)", tt.lang, tt.query, w, got)
			}
		}
	}
}

// TestCognateMissAllocatesNothing: a word no ending reads costs no garbage.
func TestCognateMissAllocatesNothing(t *testing.T) {
	vocab := map[string]int32{"activity": 0}
	buf := make([]byte, 0, 64)
	for _, w := range []string{"qqqqqqcion", "qqqqqqidad", "qqqqqqar"} {
		if n := testing.AllocsPerRun(50, func() { readCognate(w, anyLatinLang, vocab, &buf) }); n != 0 {
			t.Errorf("readCognate(%q) allocates %v times, want 0", w, n)
		}
	}
}
