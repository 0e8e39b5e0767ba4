package query

import "testing"

// TestForeignWordIsReadAsItsEnglishCognate: a Latinate word of a request
// read as Spanish, Portuguese, French or German that the lexicon lacks is
// read as the English word with the English ending, where the index knows
// it, at less than a key's weight; German k is tried as c. The guard rows
// are a short word that would meet an unrelated English one by its
// ending, and a word read by the ending of another language.
func TestForeignWordIsReadAsItsEnglishCognate(t *testing.T) {
	t.Parallel()
	vocab := map[string]int32{}
	for i, w := range []string{
		"activity", "recent", "automatic", "security", "dependency", "category",
		"board", "task", "dent", "export", "visibility", "frequency", "notate",
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
		// Guards: a short word, and another language's ending (German
		// Notar is a notary, no Spanish verb of notate).
		{"es", "el diente está roto", nil, []string{"dent"}},
		{"de", "der Notar prüft den Vertrag", nil, []string{"notate"}},
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

// TestForeignVerbReadsItsOwnKey: an everyday Romance verb reads as the
// lexicon's key for it, not as an English word of like form (mandar is no
// mandate, planear no plane, ranger no range, retirar no retire) nor as
// another verb with re- cut off (reparar is no parar again); a verb that
// is its key with re- cut off weighs as an English re- reading does, less
// than the key itself; and an English word reached by its ending brings
// none of that word's senses.
func TestForeignVerbReadsItsOwnKey(t *testing.T) {
	t.Parallel()
	vocab := map[string]int32{}
	for i, w := range []string{
		"mandate", "send", "stop", "range", "plane", "retire", "repair", "fix", "organize", "plan",
		"remove", "withdraw", "schedule", "reschedule", "file", "report", "activity", "event", "board",
	} {
		vocab[w] = int32(i)
	}
	tests := []struct {
		lang, query string
		want, not   []string
		most        float64 // the highest allowed weight of want, 0 for a key's
	}{
		{"es", "mandar el informe al equipo", []string{"send"}, []string{"mandate"}, 0},
		{"es", "reparar el archivo roto", []string{"repair", "fix"}, []string{"stop"}, 0},
		{"es", "planear la reunión del equipo", []string{"plan"}, []string{"plane"}, 0},
		{"es", "retirar el archivo del informe", []string{"remove"}, []string{"retire"}, 0},
		{"fr", "retirer le fichier du projet", []string{"remove"}, []string{"retire"}, 0},
		{"fr", "ranger les fichiers du projet", []string{"organize"}, []string{"range"}, 0},
		{"es", "reprogramar la reunión", []string{"schedule"}, nil, intentWeight * againWeight},
		{"es", "la actividad del tablero", []string{"activity"}, []string{"event"}, 0},
	}
	for _, tt := range tests {
		got := termWeights(tt.query, vocab, nil)
		for _, w := range tt.want {
			wt, ok := got[w]
			if !ok || tt.most != 0 && wt > tt.most+1e-9 {
				t.Errorf("[%s] %q: %q weighs %v, want a term of at most %v (terms %v)", tt.lang, tt.query, w, wt, tt.most, got)
			}
		}
		for _, w := range tt.not {
			if _, ok := got[w]; ok {
				t.Errorf("[%s] %q: has %q of a misreading (terms %v)", tt.lang, tt.query, w, got)
			}
		}
	}
}
