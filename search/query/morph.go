package query

import (
	"cmp"
	"strings"

	"github.com/zot-mcp/mcp-bridge/search/thesaurus"
	"github.com/zot-mcp/mcp-bridge/search/token"
	"github.com/zot-mcp/mcp-bridge/search/words"
)

// An English word the index does not know is often a form of one it does:
// a British spelling (optimise, colour), a derived noun or verb (translation
// for translate, attending for attendance, uploader for upload), or the same
// operation again (reupload). readForm reads such a word by its form; every
// reading reaches only a word of the index's vocabulary and weighs less than
// the word as written, the further from it the less.

// Weights of a word reached by its form, against the word as written
// (lemmaWeight for the plain -ing and -ed forms, which lemma reads).
const (
	// spellingWeight: the same word in American spelling (colour → color).
	spellingWeight = lemmaWeight
	// derivedWeight: a word of the same family (translation → translate).
	derivedWeight = 0.7
	// againWeight: the operation without re- (reupload → upload).
	againWeight = 0.6
	// knownFormWeight: the base of a known inflected form that the
	// tools' text uses far more often (committing → commit).
	knownFormWeight = 0.5
)

// minFormBase is the fewest letters a base reached by a derivational
// suffix may have: shorter ones meet unrelated words by a letter or two.
const minFormBase = 4

// minUnguardedStem is the fewest letters of a stem that a suffix with
// something of its own in its place (-ation → -ate) reads off a dictionary
// word: a shorter stem, or one the suffix is merely cut from (basement,
// formation) or an e put back on (donation, consolation), is often a
// word of its own that only looks derived (base, form, done, console).
const minUnguardedStem = minFormBase + 1

// derivations are the English suffixes readForm cuts, each with what may
// stand in its place, tried in order, and the fewest letters the stem
// before it must keep (minFormBase where 0): a station is no state, nor a
// sentence sent. A base that is a verb may also take a noun suffix
// (nounSuffixes): attending → attend → attendance. A suffix marked coined
// is read only off a word the general-English thesaurus does not hold: a
// dictionary word with that ending is often no derivation at all
// (business, realize, apply), while coined words are (uploader, deployer,
// prioritize).
var derivations = []struct {
	cut     string
	puts    []string
	minStem int
	coined  bool
}{
	{"ization", []string{"ize"}, 0, false},
	{"ation", []string{"ate", "e", ""}, 3, false},
	{"tion", []string{"te", "t", ""}, 0, false},
	{"sion", []string{"de", "d", "t", "se"}, 0, false},
	{"ment", []string{""}, 0, false},
	{"ability", []string{"able"}, 0, false},
	{"ibility", []string{"ible"}, 0, false},
	{"ivity", []string{"ive"}, 0, false},
	{"ity", []string{"", "e"}, 5, true},
	{"able", []string{"", "e"}, 3, false},
	{"ible", []string{"", "e"}, 0, false},
	{"ator", []string{"ate"}, 3, false},
	{"ee", []string{"", "e"}, 0, true},
	{"ance", []string{"", "e"}, 5, true},
	{"ence", []string{"", "e"}, 5, true},
	{"age", []string{"", "e"}, 5, true},
	{"al", []string{"", "e"}, 6, true},
	{"iness", []string{"y"}, 0, true},
	{"ness", []string{""}, 0, true},
	{"ily", []string{"y"}, 0, true},
	{"ly", []string{""}, 0, true},
	{"iest", []string{"y"}, 0, true},
	{"est", []string{"", "e"}, 0, true},
	{"ier", []string{"y"}, 0, true},
	{"er", []string{"", "e"}, 0, true},
	{"ize", []string{"", "y", "e"}, 0, true},
	{"ing", []string{"", "e"}, 0, false},
	{"ied", []string{"y"}, 0, false},
	{"ed", []string{"", "e"}, 0, false},
}

// nounSuffixes turn a verb base into the noun the tools may use for the
// act (attend → attendance, install → installation).
var nounSuffixes = []string{"ance", "ence", "ment", "ation", "ion"}

// britishEndings are British spellings with their American ones, cut from
// the word's end: optimise, optimising, optimisation; analyse; colour,
// coloured; centre; catalogue; licence. An ending marked derived reaches
// the base of a derived word (summarisation → summarize); the others reach
// the same word, or its base form (optimising → optimize).
var britishEndings = []struct {
	cut, put string
	derived  bool
}{
	{"isation", "ization", false}, {"isation", "ize", true},
	{"ise", "ize", false}, {"ising", "ize", false}, {"ised", "ize", false}, {"iser", "izer", false},
	{"yse", "yze", false}, {"ysing", "yze", false}, {"ysed", "yze", false},
	{"our", "or", false}, {"oured", "or", false}, {"ouring", "or", false}, {"ourite", "orite", false},
	{"tre", "ter", false}, {"ogue", "og", false}, {"ence", "ense", false},
}

// minBritishStem is the fewest letters before a British ending: four,
// tour and hour are no colour, and rise no rize.
const minBritishStem = 3

// againPrefix is the prefix of doing an operation again (reupload,
// rerender, recolour): the rest says which operation.
const againPrefix = "re"

// notAgain are English words that begin as a re- of another word without
// being one (research is no search again, resource no source), among them
// those the thesaurus does not hold; a shorter rest than minFormBase+1
// letters (return, remove, report) is never read.
var notAgain = map[string]bool{
	"research": true, "resource": true, "represent": true, "restore": true, "recover": true,
	"resolve": true, "reserve": true, "release": true, "request": true, "refresh": true,
	"reverse": true, "respect": true, "restrict": true, "resort": true, "retreat": true,
	"recount": true, "reinforce": true, "register": true, "relation": true, "reside": true,
}

// readForm returns the word of vocab (the index's vocabulary) that the
// unknown English word w is a form of, its weight against w, and whether
// it is a word of w's family rather than w itself (Analyser.derived); or ""
// when none is. buf is a buffer for the forms tried, so that a miss
// allocates nothing. Only the operation of a tool (toolVerb) is done again:
// refactor is no factor again, nor reproduce produce, nor reclaim claim.
func readForm(w string, vocab map[string]int32, tables *queryTables, buf *[]byte) (b string, weight float64, family bool) {
	if !formWord(w) {
		return "", 0, false
	}
	if b, wt, family := readSuffixes(w, vocab, buf); b != "" {
		return b, wt, family
	}
	if rest, ok := strings.CutPrefix(w, againPrefix); ok && len(rest) >= minFormBase+1 && !notAgain[w] && !dictionaryWord(w) {
		b := rest
		if _, ok := vocab[rest]; !ok {
			// reprintable: printable again, of print's family.
			b, _, family = readSuffixes(rest, vocab, buf)
		}
		if b != "" && tables.toolVerb(b) {
			return b, againWeight, family
		}
	}
	return "", 0, false
}

// toolVerb reports whether w is a word the ranker knows as a tool's
// operation: a verb of its own (words.VerbClass) or a key of the lexicon.
func (t *queryTables) toolVerb(w string) bool {
	return words.VerbClass(w) != 0 || t.intents.get(w) != nil || t.expansions.get(w) != nil
}

// readSuffixes reads w by its British spelling, then by its derivational
// suffixes; family says w was read as a word of its family.
func readSuffixes(w string, vocab map[string]int32, buf *[]byte) (b string, weight float64, family bool) {
	if b, derived := american(w, vocab, buf); b != "" {
		if derived {
			return b, derivedWeight, true
		}
		return b, spellingWeight, false
	}
	b, weight = readDerived(w, vocab, buf)
	return b, weight, b != ""
}

// american returns the word of vocab that w, in British spelling, is in
// American spelling, or its base form (optimising → optimize), or, derived,
// the base of its family (summarisation → summarize); or "".
func american(w string, vocab map[string]int32, buf *[]byte) (b string, derived bool) {
	for _, e := range britishEndings {
		stem, ok := strings.CutSuffix(w, e.cut)
		if !ok || len(stem) < minBritishStem {
			continue
		}
		if b := try(buf, vocab, stem, e.put); b != "" {
			return b, e.derived
		}
	}
	return "", false
}

// readDerived reads w by the first of its derivational suffixes whose
// base, or that base's noun, the index knows.
func readDerived(w string, vocab map[string]int32, buf *[]byte) (string, float64) {
	for _, d := range derivations {
		stem, ok := strings.CutSuffix(w, d.cut)
		if !ok {
			continue
		}
		// The longest suffix that matches decides, whether it reads or
		// not: "station" is not read as "-ion" once "-tion" failed.
		if len(stem) < cmp.Or(d.minStem, minFormBase) || d.coined && dictionaryWord(w) {
			return "", 0
		}
		inDictionary := -1 // dictionaryWord(w) once asked: 0 or 1
		for _, p := range d.puts {
			if len(stem)+len(p) < minFormBase {
				continue
			}
			if p == "" || p == "e" || len(stem) < minUnguardedStem {
				if inDictionary < 0 {
					inDictionary = 0
					if dictionaryWord(w) {
						inDictionary = 1
					}
				}
				if inDictionary == 1 {
					continue
				}
			}
			if d.cut == "ize" && p == "" && strings.HasSuffix(stem, "or") {
				// An agent noun's verb is no -ize of it: authorize
				// is not author.
				continue
			}
			if b := try(buf, vocab, stem, p); b != "" {
				return b, derivedWeight
			}
		}
		if m := len(stem); m > minFormBase && stem[m-1] == stem[m-2] && !strings.HasSuffix(stem, "ss") && !strings.HasSuffix(stem, "ll") {
			// A doubled consonant (planner, shipping): the base has one.
			if b := try(buf, vocab, stem[:m-1], ""); b != "" {
				return b, derivedWeight
			}
		}
		if d.cut == "ing" || d.cut == "ed" || d.cut == "er" {
			for _, n := range nounSuffixes {
				if b := try(buf, vocab, stem, n); b != "" {
					return b, derivedWeight
				}
			}
		}
		return "", 0
	}
	return "", 0
}

// dictionaryWord reports whether the general-English thesaurus holds w as
// a word of its own (research, resource, return: no re- of search, source,
// turn).
func dictionaryWord(w string) bool {
	_, ok := thesaurus.Lookup(w)
	return ok
}

// try returns stem+put when vocab holds it, or "" (without allocating).
func try(buf *[]byte, vocab map[string]int32, stem, put string) string {
	*buf = append(append((*buf)[:0], stem...), put...)
	if _, ok := vocab[string(*buf)]; ok {
		return string(*buf)
	}
	return ""
}

// formWord reports whether readForm and readKnownForm may read w: lower
// case ASCII letters only, since the forms they know are English ones, and
// longer than the shortest base a form may reach.
func formWord(w string) bool { return len(w) > minFormBase && asciiLower(w) }

// rarerForm is how much higher an inflected form's idf must be than its
// base's for readKnownForm to read it as the base: the tools' text uses the
// base several times as often, so the form as written finds few of them.
const rarerForm = 2.0

// readKnownForm puts the base of the original term p, a word the index
// knows that the lexicon does not, where p is an -ing or -ed form or a
// British spelling that the tools' text uses far less often than its base
// (committing against commit, colour against color): the few tools that use
// the form do not stand for all that do the operation.
// The base weighs knownFormWeight of p and takes none of its senses.
func (s *Analyser) readKnownForm(p string, w float64) {
	if s.idf == nil || s.tables.intents.get(p) != nil || s.tables.expansions.get(p) != nil || !formWord(p) {
		return
	}
	var l string
	if strings.HasSuffix(p, "ing") || strings.HasSuffix(p, "ed") {
		l = lemma(p, s.inVocab)
		if e := try(&s.form, s.vocab, l, "e"); l != "" && e != "" && s.idf[s.vocab[e]] < s.idf[s.vocab[l]] {
			// Both the stem and the stem with e are words (stated:
			// stat, state): the form is of the one the tools' text
			// uses more.
			l = e
		}
	}
	if l == "" {
		// A British spelling (colour, analysed) where the tools' text
		// mostly spells the word the American way.
		l, _ = american(p, s.vocab, &s.form)
	}
	if len(l) < minFormBase || token.IsStop(l) {
		// coming is no com.
		return
	}
	if s.idf[s.vocab[p]] < s.idf[s.vocab[l]]+rarerForm {
		return
	}
	s.put(l, w*knownFormWeight, false)
}
