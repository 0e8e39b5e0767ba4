package query

import "testing"

// TestForeignFormReachesItsEnglishForm: a foreign participle, past tense or
// noun of the act reaches its verb's key by the class rules of its
// language, and a participle, or a verb with the prefix of doing it again,
// also reaches the English form of the key's words where the index has it
// (completadas → completed, reprogramar → reschedule, supprimés →
// deleted). The guard rows are the misreadings of the rules without their
// guards: a noun that begins as re- (repetición is no petición again), a
// German verb, whose infinitive is none of the Romance ones, and words that
// end as a participle without being one of the key they reach (estado is a
// key itself, busqué a preterite, Gewicht a key of its own that begins
// and ends as a participle).
func TestForeignFormReachesItsEnglishForm(t *testing.T) {
	t.Parallel()
	vocab := map[string]int32{}
	for i, w := range []string{
		"complete", "completed", "schedule", "reschedule", "scheduled", "delete", "deleted",
		"change", "changed", "download", "downloaded", "send", "resend", "start", "restart",
		"save", "saved", "file", "task", "email", "request", "alarm", "state", "stated",
		"search", "searched", "weight", "weighted", "copy", "copied", "stop", "stopped",
		"edit", "edited", "plan", "planned", "planed",
	} {
		vocab[w] = int32(i)
	}
	tests := []struct {
		lang, query string
		want, not   []string
	}{
		{"es", "tareas completadas esta semana", []string{"complete", "completed"}, nil},
		{"es", "reprogramar el correo", []string{"schedule", "reschedule"}, nil},
		{"es", "reenviar el correo al cliente", []string{"send", "resend"}, nil},
		{"pt", "arquivo baixado ontem", []string{"download", "downloaded"}, nil},
		{"de", "zuletzt geänderte Dateien", []string{"change", "changed"}, nil},
		{"de", "die gespeicherten Dateien", []string{"save", "saved"}, nil},
		{"de", "Änderung der Datei", []string{"change"}, nil},
		{"de", "Speicherung der Datei", []string{"save"}, nil},
		{"fr", "les fichiers supprimés", []string{"delete", "deleted"}, nil},
		{"fr", "le téléchargement du fichier", []string{"download"}, nil},
		// English spells the -ed form of these verbs its own way.
		{"es", "archivos copiados ayer", []string{"copy", "copied"}, nil},
		{"de", "der gestoppte Dienst", []string{"stop", "stopped"}, nil},
		{"es", "archivos editados", []string{"edit", "edited"}, []string{"editted"}},
		{"es", "tareas planeadas", []string{"plan", "planned"}, []string{"planed"}},
		// Guards.
		{"es", "repetición de la alarma", nil, []string{"request"}},
		{"de", "restarten der Datei", nil, []string{"start", "restart"}},
		{"es", "estado de la cuenta", nil, []string{"stated"}},
		{"es", "busqué noticias de hoy", nil, []string{"searched"}},
		{"de", "das Gewicht des Pakets berechnen", []string{"weight"}, []string{"weighted"}},
	}
	for _, tt := range tests {
		var a Analyser
		terms, _ := a.Analyse(tt.query, vocab, nil)
		got := map[string]bool{}
		for _, term := range terms {
			got[term.Text] = true
		}
		for _, w := range tt.want {
			if !got[w] {
				t.Errorf("[%s] %q: lacks %q (terms %v)", tt.lang, tt.query, w, got)
			}
		}
		for _, w := range tt.not {
			if got[w] {
				t.Errorf("[%s] %q: has %q of a misreading (terms %v)", tt.lang, tt.query, w, got)
			}
		}
	}
}
