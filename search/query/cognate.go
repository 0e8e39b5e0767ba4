package query

import "strings"

// Much of the tools' English is Latinate, and a Spanish, Portuguese,
// French or German word the lexicon lacks is often the English word with
// the ending of its language (actividad, atividade, activité, Aktivität:
// activity). readCognate reads such a word as the English one by its
// ending, where the index knows the English word.

// cognateWeight is the weight of the English word a foreign word is read
// as by its ending, against the word as written: below a lexicon key's,
// since an ending is a guess where a key is known.
const cognateWeight = 0.8

// cognates are the endings of each language's Latinate words with the
// English ending, on the accent-folded word; every rule whose ending
// matches is tried, in order, and the first English word the index knows
// wins.
var cognates = []struct {
	cut, put string
	langs    latinLang
}{
	// -tion, -sion: configuración, configuração, Konfiguration.
	// Spanish plurals in -es keep their e once the s is gone
	// (notificaciones, actividades).
	{"cion", "tion", langES}, {"cione", "tion", langES}, {"sion", "sion", langES | langPT}, {"sion", "ssion", langES | langPT},
	{"sione", "sion", langES}, {"sione", "ssion", langES},
	{"cao", "tion", langPT}, {"coe", "tion", langPT}, {"sao", "sion", langPT}, {"sao", "ssion", langPT},
	// -ity: actividad, atividade, activité, Aktivität.
	{"idad", "ity", langES}, {"dad", "ty", langES}, {"idade", "ity", langES | langPT}, {"dade", "ty", langES | langPT},
	{"ite", "ity", langFR}, {"itat", "ity", langDE}, {"tat", "ty", langDE},
	// -ic: automático, automatique, automatisch.
	{"ico", "ic", langES | langPT | langIT}, {"ica", "ic", langES | langPT | langIT}, {"ique", "ic", langFR}, {"isch", "ic", langDE},
	// -ive: activo, ativo, actif, aktiv.
	{"ivo", "ive", langES | langPT | langIT}, {"iva", "ive", langES | langPT | langIT}, {"if", "ive", langFR}, {"ive", "ive", langFR}, {"iv", "ive", langDE},
	// -ent, -ant: reciente, cliente, importante, Client.
	{"iente", "ent", langES | langPT}, {"ente", "ent", langES | langPT | langIT}, {"ante", "ant", langES | langPT | langIT},
	// -ence, -ency: dependencia, dependência, dépendance, Dependenz.
	{"encia", "ency", langES | langPT}, {"encia", "ence", langES | langPT}, {"enz", "ence", langDE}, {"enz", "ency", langDE},
	// -ure: Struktur, estructura; -y: Kategorie, categoría.
	{"ur", "ure", langDE}, {"ura", "ure", langES | langPT | langIT}, {"ie", "y", langDE}, {"ia", "y", langES | langPT | langIT},
	// -or: editor, éditeur, moniteur.
	{"eur", "or", langFR},
	// -ize, -ate and plain verbs: optimizar, otimizar, optimiser,
	// optimieren; validar, valider, validieren; exportar, exporter.
	{"izar", "ize", langES | langPT}, {"iser", "ize", langFR}, {"ieren", "e", langDE}, {"ieren", "ate", langDE}, {"ieren", "", langDE},
	{"ar", "ate", langES | langPT}, {"er", "ate", langFR}, {"ar", "", langES | langPT}, {"er", "", langFR}, {"ar", "e", langES | langPT}, {"er", "e", langFR},
}

// minCognate is the fewest letters of an English word a cognate reading
// may reach: shorter ones meet unrelated words by a letter or two.
const minCognate = 5

// readCognate returns the English word of vocab that the folded foreign
// word f of a request read as the languages langs is a cognate of, or "".
// German spells c as k in such words (Aktivität, Kategorie), so a German
// word is tried with k as c too. buf is a buffer for the forms tried, so
// that a miss allocates nothing.
func readCognate(f string, langs latinLang, vocab map[string]int32, buf *[]byte) string {
	if b := cognateOf(f, langs, vocab, buf); b != "" || langs&langDE == 0 || !strings.Contains(f, "k") {
		return b
	}
	*buf = append((*buf)[:0], f...)
	for i, c := range *buf {
		if c == 'k' {
			(*buf)[i] = 'c'
		}
	}
	// The buffer is reused below; this copy is the one allocation of a
	// German word with a k, which is rare in a request.
	return cognateOf(string(*buf), langDE, vocab, buf)
}

// cognateOf is readCognate for one spelling of the word.
func cognateOf(f string, langs latinLang, vocab map[string]int32, buf *[]byte) string {
	for _, c := range cognates {
		if c.langs&langs == 0 {
			continue
		}
		stem, ok := strings.CutSuffix(f, c.cut)
		if !ok || len(stem)+len(c.put) < minCognate {
			continue
		}
		if b := try(buf, vocab, stem, c.put); b != "" {
			return b
		}
	}
	return ""
}
