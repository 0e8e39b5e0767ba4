package query

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/search/token"
	"github.com/zot-mcp/mcp-bridge/search/words"
)

// Term is one analysed query term with its weight.
type Term struct {
	Text   string
	Weight float64
	Strong bool   // an original word or an abbreviation of one: can name a server
	Origin uint64 // bits of the original query words the term stands for
}

// Analyser is the working memory of one query analysis at a time, kept by
// the index's scratch pool so that a search reuses its maps and slices
// instead of allocating them anew; Analyse resets it first. The zero value
// is ready for use.
type Analyser struct {
	weights             map[string]Term
	origWeight          map[string]float64 // original term → its highest weight
	lemmaOf             map[string]string  // unknown inflected original term → known base form
	lemmaScale          map[string]float64 // original term → its lemma's weight, where not lemmaWeight (readForm)
	family              map[string]bool    // original terms read as a word of their family or a cognate (derived)
	conceptRead         map[string]bool    // original terms addConceptKeys has read
	firstAt, rawAt      map[string]int     // first position of a term in orig, of a word in raw
	orig                []string           // original terms, in order
	raw                 []string           // raw lower-case words in order, stop words included
	sing                []string           // per raw word: its singular, or the base form lemmaOf gives it
	rawWeight           []float64          // weight of each raw word's chunk
	rawBits             []uint64           // coverage bit of each raw word's singular
	rawChunk            []int              // per raw word: its white-space separated chunk
	formScale           []float64          // per raw word: its lemmaScale, or 1
	gram                grammarScratch     // weighGrammarPairs' buffers
	longest             []int              // per raw word: see findLongest
	cover               []RunWord          // findLongest's buffer
	key, joined, folded []byte
	inflection          []byte // Concepts.inflected's buffer
	form                []byte // readForm's buffer
	phrase              []byte // phraseKey's buffer
	word                []byte // token.ForEachWord's buffer
	terms               []Term
	// idf is the index's idf by term id, as given to Analyse; nil takes
	// every thesaurus word the vocabulary has.
	idf []float64
	// lead is the word that opens the request as its verb though it is no
	// verb the ranker knows ("comment on the issue"), set by Analyse.
	lead string
	// sounds reads the katakana loanwords the lexicon does not know
	// (UseSounds); loans are the ones of this request, runes and romaji
	// findLoans' buffers.
	sounds *Sounds
	loans  []loan
	runes  []rune
	romaji []byte

	// One analysis's state, reset by Analyse.
	vocab  map[string]int32
	tables *queryTables
	// origin is the bits of the term being expanded, set before each put:
	// the steps set it for what they add, and a step that does not leaves
	// the last one's.
	origin    uint64
	names     map[string]bool // original terms seen only as capitalised words after the first
	namesFile bool            // a chunk has the shape of a file name
	askingAt  []bool          // per raw word: it asks (askingPlaces)
	asking    map[string]bool // the asking words, as terms
	verbs     uint16
	question  bool
	toolTalk  bool // the request speaks of tools (speaksOfTools)
	compounds int  // the words readCompound has read
	chunk     int  // the chunk readChunks is reading
}

// Analyse returns the weighted terms of q, sorted by term so that score
// sums are computed in a fixed order, and the verb classes q uses. vocab is
// the index vocabulary (term → id), used to join and split compound words,
// and idf the index's idf by term id (nil: every thesaurus word the
// vocabulary has is usable). The terms live in s until its next use.
//
// The steps run in this order, each reading what the ones before found.
func (s *Analyser) Analyse(q string, vocab map[string]int32, idf []float64) ([]Term, uint16) {
	s.reset(vocab, idf)
	q = token.Normalized(q)
	s.toolTalk = speaksOfTools(q, s.word)
	s.readChunks(q)
	s.addConceptKeys()
	s.weighAsking()
	s.weighTimeClause()
	s.findVerb()
	s.findLead()
	s.implicitVerbs()
	s.addIntents()
	s.addJoins()
	s.addSplits()
	s.addExpansions()
	s.addThesaurus()
	return s.collect(), s.verbs
}

// Lead is the word that opened the last analysed request as its verb though
// it is no verb the ranker knows ("comment on the issue", "label the PR"),
// or "": the index says what it means, from the verbs its tool names pair
// the word with.
func (s *Analyser) Lead() string { return s.lead }

// reset readies s for an analysis over vocab and idf.
func (s *Analyser) reset(vocab map[string]int32, idf []float64) {
	if s.weights == nil {
		s.weights, s.origWeight, s.lemmaOf = map[string]Term{}, map[string]float64{}, map[string]string{}
		s.lemmaScale, s.family, s.conceptRead = map[string]float64{}, map[string]bool{}, map[string]bool{}
		s.firstAt, s.rawAt = map[string]int{}, map[string]int{}
		s.word = make([]byte, 0, 64)
	}
	clear(s.weights)
	clear(s.origWeight)
	clear(s.firstAt)
	clear(s.rawAt)
	clear(s.lemmaOf)
	clear(s.lemmaScale)
	clear(s.family)
	clear(s.conceptRead)
	s.orig, s.raw, s.rawWeight, s.rawChunk = s.orig[:0], s.raw[:0], s.rawWeight[:0], s.rawChunk[:0]
	s.vocab, s.idf, s.tables = vocab, idf, lexiconTables()
	s.origin = 0
	s.names, s.namesFile = nil, false
	s.askingAt, s.asking = nil, nil
	s.loans = s.loans[:0]
	s.verbs, s.question = 0, false
}

// put adds term t at weight w for the words of s.origin; a term put again
// keeps its highest weight and gathers the words it stands for.
func (s *Analyser) put(t string, w float64, strong bool) {
	cur, ok := s.weights[t]
	if !ok || w > cur.Weight {
		cur.Text, cur.Weight = t, w
	}
	cur.Strong = cur.Strong || strong
	cur.Origin |= s.origin
	s.weights[t] = cur
}

func (s *Analyser) inVocab(t string) bool { _, ok := s.vocab[t]; return ok }

// known reports whether a word means something to the index: it is
// indexed or has synonyms or intents.
func (s *Analyser) known(t string) bool {
	return s.inVocab(t) || s.tables.expansions.get(t) != nil || s.tables.intents.get(t) != nil
}

// bitOf is the coverage bit of an original term: its first position
// (looked up, not searched for: a long request in a script read as
// bigrams has thousands of distinct terms).
func (s *Analyser) bitOf(t string) uint64 {
	if i, ok := s.firstAt[t]; ok {
		return 1 << min(i, 63)
	}
	return 0
}

// readChunks reads q's white-space separated chunks: the shape of each
// (a file name, a URL, an identifier, a value) and its words, which become
// the original terms at full weight, or at shapedWordWeight inside a shape.
func (s *Analyser) readChunks(q string) {
	ci := -1 // index of chunk among the query's white-space separated words
	for chunk := range strings.FieldsSeq(q) {
		ci++
		s.chunk = ci
		weight, strong := s.readShape(chunk)
		hyphened := s.hyphenedWord(chunk)
		for run := range strings.FieldsFuncSeq(chunk, func(r rune) bool { return !token.IsWordRune(r) }) {
			if a, b, ok := s.splitTo(run); ok {
				// pdf2text: "pdf to text".
				s.readRun(a, false, weight, strong)
				s.readRun(b, false, weight, strong)
				continue
			}
			s.readRun(run, ci > 0 && titleCase(run), weight, strong)
		}
		if hyphened != "" {
			s.readRun(hyphened, false, weight, strong)
		}
	}
}

// maxHyphenParts is the most parts hyphenedWord joins (end-to-end).
const maxHyphenParts = 3

// hyphenedWord returns the word a chunk of runs joined by hyphens spells
// without them, in lower case (to-do, log-in, e-mail, sign-up, pop-up),
// where the ranker knows that word as one; or "", as for a name with
// digits (us-east-1). It is read as a word of
// its own beside the parts, so that its senses count (a to-do is a task),
// which the parts, often stop words, do not carry.
func (s *Analyser) hyphenedWord(chunk string) string {
	chunk = strings.Trim(chunk, ".,;:!?()\"'")
	if n := strings.Count(chunk, "-"); n == 0 || n >= maxHyphenParts || len(chunk) > maxCompoundLen {
		return ""
	}
	for i := 0; i < len(chunk); i++ {
		if c := chunk[i]; c != '-' && c < utf8.RuneSelf && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			// A name with digits or marks (us-east-1, a timestamp) is
			// read by its shape.
			return ""
		}
	}
	chunk = strings.ToLower(chunk) // no copy when it is lower case already
	s.joined = s.joined[:0]
	for rest := chunk; rest != ""; {
		part, after, _ := strings.Cut(rest, "-")
		if part == "" || strings.HasSuffix(rest, "-") && after == "" {
			return ""
		}
		s.joined = append(s.joined, part...)
		rest = after
	}
	s.folded = token.SingularBytes(append(s.folded[:0], s.joined...))
	w, tb := s.folded, s.tables
	// Looked up by string(w) in place, which does not allocate: a pasted
	// log holds a hyphened name on every line.
	_, inVocab := s.vocab[string(w)]
	if len(w) < minJoinLen-1 || !inVocab && tb.expansions.getBytes(w) == nil && tb.intents.getBytes(w) == nil {
		return ""
	}
	return string(s.joined)
}

// minToPart is the fewest letters on each side of the "2" of a name such
// as pdf2text or html2md.
const minToPart = 2

// splitTo splits a run of lower-case letters, "2" and letters (pdf2text,
// json2csv, html2md: a converter's name, "pdf to text") into the words on
// either side, when the index knows both and knows neither the run nor its
// first part with the "2" as one word: ec2Instance, http2Server and
// word2vec are names, not conversions.
func (s *Analyser) splitTo(run string) (a, b string, ok bool) {
	i := strings.IndexByte(run, '2')
	if i < minToPart || len(run)-i-1 < minToPart {
		return "", "", false
	}
	for j := 0; j < len(run); j++ {
		if c := run[j]; j != i && (c < 'a' || c > 'z') {
			return "", "", false
		}
	}
	a, b = run[:i], run[i+1:]
	if s.inVocab(run) || s.inVocab(run[:i+1]) || !s.inVocab(a) || !s.inVocab(token.Singular(b)) {
		return "", "", false
	}
	return a, b, true
}

// readShape puts the terms the shape of chunk implies and returns the
// weight its words take and whether they can name a server.
func (s *Analyser) readShape(chunk string) (weight float64, strong bool) {
	shape := wordShape(chunk)
	s.namesFile = s.namesFile || shape == "file"
	if shape != "" {
		s.origin = 0
		s.put(shape, shapeWeight, false)
		if shape == "file" {
			for _, t := range extensionWords[fileExtension(chunk)] {
				s.put(t, shapeWeight, false)
			}
		}
		return shapedWordWeight, false
	}
	if id := identShape(chunk); id != "" {
		// A name such as db-1, #ops or @maria: what it is says more
		// than the words inside it.
		s.origin = 0
		if id != "name" {
			s.put(id, shapeWeight, false)
		}
		return shapedWordWeight, false
	}
	if means := valueShape(chunk); means != nil {
		// A value (40.7128, 9am, 2024-05-01, v1.2.0) says what kind
		// of thing the request is about.
		s.origin = 0
		for _, t := range means {
			s.put(t, shapeWeight, false)
		}
		return shapedWordWeight, false
	}
	return 1.0, true
}

// readRun reads one run of word runes of a chunk whose words weigh weight:
// its raw words, and its original terms with their lemmas. name says the
// run is a capitalised word after the request's first.
func (s *Analyser) readRun(run string, name bool, weight float64, strong bool) {
	var parts []string
	// The query is NFKC already (Analyse): its runs need not be checked again.
	token.EachWord(run, s.word, true, func(w []byte, whole bool) {
		if !whole {
			s.raw = append(s.raw, string(w))
			s.rawWeight = append(s.rawWeight, weight)
			s.rawChunk = append(s.rawChunk, s.chunk)
		}
		t := string(token.SingularBytes(w))
		switch {
		case token.IsStop(t), metaWords[t], s.toolTalk && toolTalkWords[t]:
		case !whole:
			parts = append(parts, t)
		case s.inVocab(t):
			// A camelCase word the index knows whole ("GitHub"):
			// search for it rather than its parts.
			parts = []string{t}
		}
	})
	for _, p := range parts {
		if name {
			if _, seen := s.origWeight[p]; !seen {
				if s.names == nil {
					s.names = map[string]bool{}
				}
				s.names[p] = true
			}
		} else {
			delete(s.names, p)
		}
		if _, ok := s.firstAt[p]; !ok {
			s.firstAt[p] = len(s.orig)
		}
		s.orig = append(s.orig, p)
		w := weight
		if lightWords[p] {
			w *= lightWordWeight
		}
		s.origWeight[p] = max(s.origWeight[p], w)
		s.origin = s.bitOf(p)
		s.put(p, w, strong)
		if s.firstAt[p] < len(s.orig)-1 {
			// Read before (a pasted log repeats its words): its form
			// reads as it did.
			if l, ok := s.lemmaOf[p]; ok {
				_, byForm := s.lemmaScale[p]
				s.put(l, w*s.lemmaWeightOf(p), strong && !byForm)
			}
			continue
		}
		if s.known(p) {
			s.readKnownForm(p, w)
			continue
		}
		if l := lemma(p, s.known); l != "" {
			s.lemmaOf[p] = l
			s.put(l, w*lemmaWeight, strong)
		} else if l, lw, family := readForm(p, s.vocab, s.tables, &s.form); l != "" {
			s.lemmaOf[p] = l
			s.lemmaScale[p] = lw
			s.family[p] = family
			s.put(l, w*lw, false)
		}
	}
}

// derived reports whether the original term t was read as a word of its
// family (printable as print, editor as edit): that word is searched for,
// but not its senses in the lexicon or the thesaurus, which are the
// word's own (print → console output), not its family's.
func (s *Analyser) derived(t string) bool { return s.family[t] }

// lemmaWeightOf is the weight of the original term t's lemma against t.
func (s *Analyser) lemmaWeightOf(t string) float64 {
	if w, ok := s.lemmaScale[t]; ok {
		return w
	}
	return lemmaWeight
}

// weighAsking makes the words that ask (see askingPairs) weigh like light
// words.
func (s *Analyser) weighAsking() {
	s.askingAt = askingPlaces(s.raw)
	for i, a := range s.askingAt {
		if t := token.Singular(s.raw[i]); a && !lightWords[t] && !s.asking[t] {
			if s.asking == nil {
				s.asking = map[string]bool{}
			}
			s.asking[t] = true
			s.origWeight[t] *= lightWordWeight
			if qt, ok := s.weights[t]; ok {
				qt.Weight *= lightWordWeight
				s.weights[t] = qt
			}
		}
	}
}

// findVerb sets the query's verb classes from its first verb, the main verb
// of an imperative task; a phrasal use ("open a PR") is replaced by the
// verb tools use for it.
func (s *Analyser) findVerb() {
	// rawAt is the first position of each raw word.
	for i := len(s.raw) - 1; i >= 0; i-- {
		s.rawAt[s.raw[i]] = i
	}
	for i, t := range s.orig {
		if s.names[t] {
			// "New York", "Main Street": a capitalised word inside a
			// sentence names something; it is not the verb.
			continue
		}
		if s.asking[t] {
			continue
		}
		if j, ok := s.rawAt[t]; ok && j > 0 && nounPhraseStarts[s.raw[j-1]] {
			// "every open pull request", "the open issues": after a
			// determiner the word describes a thing; it is not the verb.
			continue
		}
		if l, ok := s.lemmaOf[t]; ok {
			t = l
		}
		v := s.verbClassOf(t)
		if objects, means, ok := words.PhrasalVerb(t); ok && (v != 0 || i == 0) {
			for _, o := range s.orig[i+1:] {
				if slices.Contains(objects, o) {
					s.put(means, words.AbbrevWeight, true)
					v = words.VerbClass(means)
					break
				}
			}
		}
		if v != 0 {
			s.verbs = v
			return
		}
	}
}

// verbClassOf returns the verb classes of the original term t (in its base
// form), however it reaches a verb, or 0.
func (s *Analyser) verbClassOf(t string) uint16 {
	if v := words.VerbClass(t); v != 0 {
		return v
	}
	// A past form the index knows as a word ("added", "deleted") is still
	// that verb; -ing forms are left alone, as they are often nouns
	// ("settings", "listing").
	if strings.HasSuffix(t, "ed") {
		if l := lemma(t, func(s string) bool { return words.VerbClass(s) != 0 }); l != "" {
			if v := words.VerbClass(l); v != 0 {
				return v
			}
		}
	}
	// An everyday verb ("remember", "forget") takes the class of the first
	// tool verb it stands for.
	for _, to := range s.tables.intents.get(t) {
		if v := words.VerbClass(to); v != 0 {
			return v
		}
	}
	// Or the class of its first general-English synonym that has one
	// ("halt", "end" → stop).
	return thesaurusVerbClass(t)
}

// findLead finds the word that opens the request as a verb the ranker does
// not know (denominal.go).
func (s *Analyser) findLead() {
	s.lead = denominalLead(s.raw, s.names, func(t string) bool {
		if l, ok := s.lemmaOf[t]; ok {
			t = l
		}
		if words.VerbClass(t) != 0 {
			return true
		}
		for _, to := range s.tables.intents.get(t) {
			if words.VerbClass(to) != 0 {
				return true
			}
		}
		// A verb WordNet already gave a class (halt → stop) keeps it.
		return thesaurusVerbClass(t) != 0
	})
}

// implicitVerbs gives the verb classes a request implies without a verb:
// a question reads, and so do requests opening as one, noun phrases asking
// for all or one of something, and a file named alone.
func (s *Analyser) implicitVerbs() {
	s.origin = 0
	raw := s.raw
	s.question = len(raw) > 0 && questionStarts[raw[0]]
	if s.question {
		// A question asks to see something, whatever verb it mentions
		// ("what do you remember", "which files did I change").
		s.verbs = words.VGet | words.VList | words.VSearch
	} else if s.verbs == 0 && len(raw) > 0 && implicitReadStarts[raw[0]] {
		s.verbs = words.VGet | words.VList
	} else if v := quantifierVerbs(raw); s.verbs == 0 && v != 0 && nounPhraseStarts[raw[0]] {
		// "every open pull request", "the details of one label": a noun
		// phrase with no verb; how many things it asks for says list or
		// get.
		s.verbs = v
	} else if s.verbs == 0 && s.namesFile {
		// A file named with nothing to do to it ("the Dockerfile",
		// "go.mod") is to be read.
		s.verbs = words.VGet
		s.origin = 0
		s.put("read", fileReadWeight, false)
	}
}

// addIntents puts the tool words the everyday words and phrases of the
// request stand for (the lexicon).
func (s *Analyser) addIntents() {
	raw := s.raw
	s.rawBits = slices.Grow(s.rawBits[:0], len(raw))[:len(raw)]
	s.sing = slices.Grow(s.sing[:0], len(raw))[:len(raw)]
	sing, rawBits := s.sing, s.rawBits
	s.formScale = slices.Grow(s.formScale[:0], len(raw))[:len(raw)]
	for i, w := range raw {
		sing[i] = token.Singular(w)
		rawBits[i] = s.bitOf(sing[i])
		s.formScale[i] = 1
		if l, ok := s.lemmaOf[sing[i]]; ok && !s.derived(sing[i]) {
			if f, ok := s.lemmaScale[sing[i]]; ok {
				// A word read by its form says what its lexicon key
				// says no more surely than it says the word itself.
				s.formScale[i] = f
			}
			sing[i] = l
		}
	}
	s.findLongest()
	s.weighKnownWords()
	s.weighGrammarPairs()
	key := s.key // a lookup by string(key) does not allocate
	for i := range sing {
		// An asking word's own intents are skipped; its phrases count.
		asking := s.askingAt[i]
		if IsCJKPair(raw[i]) {
			s.addRunWordIntents(i, asking)
			continue
		}
		key = key[:0]
		var bits uint64
		w := 1.0
		for j := i; j < len(sing) && j < i+maxIntentWords; j++ {
			if j > i {
				key = append(key, ' ')
			}
			key = append(key, sing[j]...)
			bits |= rawBits[j]
			w = min(w, s.rawWeight[j]*s.formScale[j])
			s.origin = bits
			if asking && j == i {
				continue
			}
			to := s.tables.intents.getBytes(key)
			if to != nil && s.insideLonger(i, j+1, to) {
				continue
			}
			for _, t := range to {
				s.put(t, intentWeight*w, false)
			}
		}
	}
	s.key = key
}

// addRunWordIntents puts the tool words of the bilingual word that starts
// at the CJK character pair raw[i]: the one the run's cover chose there
// (s.longest[i]), if any; a word inside a longer one or across two says
// nothing. An asking word of one pair puts nothing.
func (s *Analyser) addRunWordIntents(i int, asking bool) {
	if s.addLoanIntents(i) {
		return
	}
	e := s.longest[i]
	if e == i || asking && e == i+1 {
		return
	}
	var bits uint64
	w := 1.0
	for j := i; j < e; j++ {
		bits |= s.rawBits[j]
		w = min(w, s.rawWeight[j])
	}
	s.origin = bits
	for _, t := range s.tables.intents.getBytes(s.phraseKey(i, e)) {
		s.put(t, intentWeight*w, false)
	}
}

// findLongest sets s.longest: per raw word, the end of the longest lexicon
// key that starts with it (the index after its last word), or the word's
// own index when none runs past it: for other words than CJK character
// pairs the longest English phrase; for a run of character pairs, the end
// of the bilingual word chosen to start there by CoverRun, or the pair's
// own index when none is.
func (s *Analyser) findLongest() {
	s.longest = slices.Grow(s.longest[:0], len(s.raw))[:len(s.raw)]
	key := s.key
	for i, w := range s.raw {
		s.longest[i] = i
		if IsCJKPair(w) {
			continue
		}
		key = key[:0]
		for j := i; j < len(s.raw) && j < i+maxIntentWords && !IsCJKPair(s.raw[j]); j++ {
			if j > i {
				key = append(key, ' ')
			}
			key = append(key, s.sing[j]...)
			if j > i && s.tables.intents.getBytes(key) != nil {
				s.longest[i] = j + 1
			}
		}
	}
	s.key = key
	for i := 0; i < len(s.raw); {
		if !IsCJKPair(s.raw[i]) {
			i++
			continue
		}
		end := s.pairRunEnd(i)
		s.cover = CoverRun(s.cover[:0], end-i, s.tables.concepts.maxWords, func(a, n int) bool {
			return s.tables.concepts.exact.getBytes(s.phraseKey(i+a, i+a+n)) != nil
		})
		for _, c := range s.cover {
			s.longest[i+c.I] = i + c.I + c.N
		}
		s.findLoans(i, end)
		i = end
	}
}

// SameRun reports whether the character pair b follows the pair a in one
// run of CJK text: pairs of a run overlap by a character.
func SameRun(a, b string) bool {
	last, _ := utf8.DecodeLastRuneInString(a)
	first, _ := utf8.DecodeRuneInString(b)
	return last == first
}

// RunWord is a known word of a run of CJK character pairs: the N pairs
// from the I-th (N+1 characters).
type RunWord struct{ I, N int }

// CoverRun appends to dst the known words of a run of n character pairs
// that a request or a description means, in order: known(i, k) reports
// whether the k pairs from the i-th are a word the lexicon knows (at most
// maxWords pairs). The words share no character and together span as many
// characters of the run as any such choice can, in as few words as that
// allows: a word inside a longer one (장소 in 저장소, ログ in プログラム)
// or across two (行情 in 运行情况, 费用 in 付费用户) is not what the text
// says, and a longer word that would take a character from each of its
// neighbours (数据集 in 数据集成) is the one left out. Among covers that do
// as well, the one read from the left taking the longest word it can.
//
// The best cover is found by one pass from the run's end and read by one
// from its start, so a long run costs its length times maxWords: requests
// and descriptions may hold thousands of characters without a space. Words
// of more than 63 pairs are not looked for (the pass keeps a bit for each
// length); no lexicon key comes near it (TestLexiconKeysFitCoverRun).
func CoverRun(dst []RunWord, n, maxWords int, known func(i, k int) bool) []RunWord {
	if n <= 0 || maxWords <= 0 {
		return dst
	}
	maxWords = min(maxWords, n, 63)
	// words[i] has bit k set when the k pairs from the i-th are a word;
	// best[p] is the best score of a cover of the characters from the p-th.
	var wordsBuf [64]uint64
	var bestBuf [66]int
	words, best := wordsBuf[:], bestBuf[:]
	if n > len(words) {
		words = make([]uint64, n)
		best = make([]int, n+2)
	}
	words, best = words[:n], best[:n+2]
	best[n+1], best[n] = 0, 0
	for i := n - 1; i >= 0; i-- {
		words[i] = 0
		best[i] = best[i+1]
		for k := 1; k <= maxWords && i+k <= n; k++ {
			if known(i, k) {
				words[i] |= 1 << k
				best[i] = max(best[i], coverScore(k, n)+best[i+k+1])
			}
		}
	}
	for p := 0; p < n; {
		k := maxWords
		for ; k >= 1; k-- {
			if words[p]&(1<<k) != 0 && coverScore(k, n)+best[p+k+1] == best[p] {
				break
			}
		}
		if k == 0 {
			p++
			continue
		}
		dst = append(dst, RunWord{p, k})
		p += k + 1
	}
	return dst
}

// coverScore is what a word of k pairs adds to a cover of a run of n
// pairs: its characters first, one less word second.
func coverScore(k, n int) int { return (k+1)*(n+2) - 1 }

// weighKnownWords makes the character pairs of a CJK word of several
// pairs that the bilingual lexicon knows weigh less each, so that the word
// counts for little more than one word of the request rather than as many
// words as it has pairs (メッセージ is one message, not four): otherwise a
// tool described in the request's script outweighs, by the length of the
// word alone, a tool that says the same in English.
func (s *Analyser) weighKnownWords() {
	for i := 0; i < len(s.raw); {
		n := s.longest[i] - i
		if n < 2 || !IsCJKPair(s.raw[i]) {
			i++
			continue
		}
		f := math.Pow(float64(n), -knownWordPairExponent)
		for j := i; j < i+n; j++ {
			if t, ok := s.weights[s.sing[j]]; ok {
				t.Weight *= f
				s.weights[s.sing[j]] = t
			}
		}
		i += n
	}
}

// insideLonger reports whether the lexicon key of raw words [i, end),
// which stands for to, lies inside a longer lexicon key of the request
// that speaks of another sense: "share" (of a pie chart) inside "share
// price" (a CJK word inside a longer one is left out by the run's cover,
// CoverRun). An English
// phrase that shares a word with to ("you remember" and "remember" both
// say memory) speaks of the same sense, and the words add up.
func (s *Analyser) insideLonger(i, end int, to []string) bool {
	for a := max(0, i-maxIntentWords+1); a <= i; a++ {
		e := s.longest[a]
		if e < end || e-a <= end-i {
			continue
		}
		if !shareWord(s.tables.intents.getBytes(s.phraseKey(a, e)), to) {
			return true
		}
	}
	return false
}

// phraseKey is the lexicon key of raw words [a, e): their singulars joined
// by one space, in s.phrase (a lookup by string(key) does not allocate).
func (s *Analyser) phraseKey(a, e int) []byte {
	s.phrase = AppendKey(s.phrase[:0], s.sing[a:e], func(w string) string { return w })
	return s.phrase
}

// shareWord reports whether a and b have a word in common.
func shareWord(a, b []string) bool {
	for _, w := range a {
		if slices.Contains(b, w) {
			return true
		}
	}
	return false
}

// addJoins puts adjacent words that the index knows as one word.
func (s *Analyser) addJoins() {
	raw := s.raw
	joined, folded := s.joined, s.folded
	for i := range raw {
		joined = append(joined[:0], raw[i]...)
		for j := i + 1; j < len(raw) && j <= i+2; j++ {
			joined = append(joined, raw[j]...)
			t := token.SingularBytes(append(folded[:0], joined...))
			folded = t[:0]
			if len(t) >= minJoinLen && !token.IsStopBytes(t) && s.inVocab(string(t)) {
				s.origin = 0
				for _, b := range s.rawBits[i : j+1] {
					s.origin |= b
				}
				s.put(string(t), joinWeight, true)
			}
		}
	}
	s.joined, s.folded = joined, folded
}

// addSplits puts the two known words an unknown word splits into.
func (s *Analyser) addSplits() {
	for _, t := range s.orig {
		if s.inVocab(t) || len(t) < 2*minSplitPart {
			continue
		}
		s.origin = s.bitOf(t)
		for cut := len(t) - minSplitPart; cut >= minSplitPart; cut-- {
			a, b := t[:cut], token.Singular(t[cut:])
			if !token.IsStop(a) && !token.IsStop(b) && s.inVocab(a) && s.inVocab(b) {
				s.put(a, splitWeight, false)
				s.put(b, splitWeight, false)
				break
			}
		}
	}
}

// addExpansions puts the synonyms and abbreviations of the original words.
func (s *Analyser) addExpansions() {
	for _, t := range s.orig {
		s.origin = s.bitOf(t)
		// A word inside a file name or identifier expands as weakly as it
		// counts itself: "config.yaml" is a file, not a configuration tool.
		ow := s.origWeight[t]
		if s.names[t] {
			// A name ("New York") does not stand for its synonyms.
			ow *= shapedWordWeight
		}
		for _, e := range s.tables.expansions.get(t) {
			s.put(e.Term, e.Weight*ow, e.Strong && ow == 1)
		}
		if l, ok := s.lemmaOf[t]; ok && !s.derived(t) {
			lw := s.lemmaWeightOf(t)
			for _, e := range s.tables.expansions.get(l) {
				s.put(e.Term, e.Weight*lw*ow, e.Strong && ow == 1 && lw == lemmaWeight)
			}
		}
	}
}

// addThesaurus puts the general-English synonyms of the words the lexicon
// says nothing about (thesaurus.go).
func (s *Analyser) addThesaurus() {
	tb := s.tables
	for _, t := range s.orig {
		l, lemmatised := s.lemmaOf[t]
		lemmatised = lemmatised && !s.derived(t)
		if lightWords[t] || s.names[t] || s.asking[t] || tb.expansions.get(t) != nil || tb.intents.get(t) != nil ||
			lemmatised && (tb.expansions.get(l) != nil || tb.intents.get(l) != nil) {
			continue
		}
		s.origin = s.bitOf(t)
		w := s.origWeight[t]
		usable := s.inVocab
		if s.inVocab(t) {
			w *= thesaurusKnownScale
			usable = func(v string) bool {
				id, ok := s.vocab[v]
				return ok && (s.idf == nil || s.idf[id] >= thesaurusKnownMinIDF)
			}
		}
		if lemmatised {
			t, w = l, w*s.lemmaWeightOf(t)
		}
		thesaurusTerms(t, w, usable, func(term string, weight float64) { s.put(term, weight, false) })
	}
}

// collect returns the terms put, sorted by term; in a question, the verbs
// of other classes than reading that everyday words stand for weigh less.
func (s *Analyser) collect() []Term {
	terms := s.terms[:0]
	for _, qt := range s.weights {
		if s.question && !qt.Strong {
			// The operations an everyday word stands for ("remember" →
			// create, add) are not what a question about it asks for.
			if v := words.VerbClass(qt.Text); v != 0 && v&s.verbs == 0 {
				qt.Weight *= questionVerbWeight
			}
		}
		terms = append(terms, qt)
	}
	slices.SortFunc(terms, func(a, b Term) int { return strings.Compare(a.Text, b.Text) })
	s.terms = terms
	return terms
}

// pairRunEnd returns the end of the run of CJK character pairs that starts at
// raw word i, itself a pair: the pairs that follow on in the same run of
// characters.
func (s *Analyser) pairRunEnd(i int) int {
	end := i + 1
	for end < len(s.raw) && IsCJKPair(s.raw[end]) && SameRun(s.raw[end-1], s.raw[end]) {
		end++
	}
	return end
}
