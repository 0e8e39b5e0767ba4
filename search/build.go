package search

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/search/query"
	"github.com/zot-mcp/mcp-bridge/search/token"
	"github.com/zot-mcp/mcp-bridge/search/words"
)

// parallelMin is the corpus size from which New tokenises on several cores.
const parallelMin = 2048

// New builds an index over docs. docs is not retained. Large corpora are
// tokenised on up to GOMAXPROCS goroutines; the result does not depend on
// how many were used.
func New(docs []Doc) *Index {
	// The query tables are built here, with the index, rather than by the
	// first search that needs them.
	Prepare()
	workers := 1
	if len(docs) >= parallelMin {
		workers = min(runtime.GOMAXPROCS(0), 8, len(docs)/(parallelMin/2))
	}
	return newIndex(docs, workers)
}

// Prepare builds the tables every search reads, which New builds too when they are not
// yet built: a caller that builds an index from data it decoded for the purpose calls it
// first, while its heap holds little, since the tables' many small objects, made among the
// decoded garbage, would each keep a page of it resident once it is collected.
func Prepare() { query.Prepare() }

// newIndex builds the index tokenising on the given number of goroutines.
func newIndex(docs []Doc, workers int) *Index {
	ix := &Index{
		docs:     make([]docMeta, len(docs)),
		products: map[string][]int32{},
	}
	ix.byID, ix.byTool = newDocSet(len(docs), false), newDocSet(len(docs), true)
	n := len(docs)

	// Servers, in order of first appearance, and the exact-name maps.
	servers := map[string]int32{}
	var serverWords [][]string
	for d := range docs {
		name := docs[d].Server
		sid, ok := servers[name]
		if !ok {
			sid = int32(len(serverWords))
			servers[name] = sid
			serverWords = append(serverWords, partWords(name))
		}
		ix.docs[d] = docMeta{id: docs[d].ID, server: sid}
		if t := docs[d].Tool; len(t) <= math.MaxUint16 && strings.HasSuffix(docs[d].ID, t) {
			ix.docs[d].tool = uint16(len(t))
		}
		lid := strings.ToLower(docs[d].ID)
		ix.byID.add(ix.docs, lid, int32(d))
		lt := strings.ToLower(docs[d].Tool)
		ix.byTool.add(ix.docs, lt, int32(d))
	}
	ix.byID.sort(ix.docs, nil)
	ix.byTool.sort(ix.docs, func(a, b int32) int { return strings.Compare(ix.docs[a].id, ix.docs[b].id) })

	// Tokenise in shards of consecutive docs.
	workers = max(1, min(workers, n))
	fieldLen := make([][numFields]float32, n)
	shards := make([]*shard, workers)
	var wg sync.WaitGroup
	for w := range shards {
		lo, hi := n*w/workers, n*(w+1)/workers
		sh := newShard(hi - lo)
		shards[w] = sh
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := lo; d < hi; d++ {
				sh.doc(d, lo, &docs[d], &ix.docs[d], serverWords[ix.docs[d].server], fieldLen[d:d+1])
			}
		}()
	}
	wg.Wait()

	// Merge shard vocabularies in doc order and remap their entries. The largest
	// shard's vocabulary is a lower bound of the whole one, and for a small catalog no
	// more than it needs.
	hint := 0
	for _, sh := range shards {
		hint = max(hint, len(sh.terms))
	}
	ix.vocab = make(map[string]int32, hint)
	ix.names.reserve(shards)
	ix.phrases.reserve(shards)
	for w, sh := range shards {
		remap := make([]int32, len(sh.terms))
		for local, t := range sh.terms {
			id, ok := ix.vocab[t]
			if !ok {
				id = int32(len(ix.vocab))
				ix.vocab[t] = id
			}
			remap[local] = id
		}
		for i := range sh.entries {
			sh.entries[i].term = remap[sh.entries[i].term]
		}
		lo := n * w / workers
		for d := lo; d < lo+len(sh.docStart); d++ {
			if v := ix.docs[d].verbTerm; v >= 0 {
				ix.docs[d].verbTerm = remap[v]
			}
		}
		sh.docStart = append(sh.docStart, int32(len(sh.entries)))
		ix.names.addNames(&sh.names, remap)
		ix.phrases.addPhrases(&sh.phrases, remap)
	}
	ix.vocab = oneText(ix.vocab)
	ix.finishNames()
	ix.phrases.finish()

	ix.postings, ix.idf = postings(shards, fieldLen, len(ix.vocab))
	ix.sounds = query.NewSounds(ix.vocab)
	ix.findProducts(serverWords)
	ix.serverSize = serverTools(ix.docs, len(serverWords))
	return ix
}

// oneText returns vocab with its words copied into one string: made one at a time by
// the shards among their garbage, each word kept a span of that garbage in use once it
// was collected.
func oneText(vocab map[string]int32) map[string]int32 {
	words := make([]string, len(vocab))
	size := 0
	for w, id := range vocab {
		words[id] = w
		size += len(w)
	}
	var b strings.Builder
	b.Grow(size)
	for _, w := range words {
		b.WriteString(w)
	}
	text := b.String()
	out := make(map[string]int32, len(vocab))
	at := 0
	for id, w := range words {
		out[text[at:at+len(w)]] = int32(id)
		at += len(w)
	}
	return out
}

// partWords returns the analysed words of s without the whole forms of
// camelCase words.
func partWords(s string) []string {
	var words []string
	token.ForEachToken(s, nil, func(w []byte, whole bool) {
		if !whole {
			words = append(words, string(w))
		}
	})
	return words
}

// entry is the per-field term frequency of one term in one document.
type entry struct {
	term     int32
	tf       [numFields]uint8
	nameWord bool
}

// shard tokenises a run of consecutive documents with its own vocabulary.
type shard struct {
	vocab    map[string]int32 // analysed term → local id
	terms    []string         // local id → term
	raw      wordTable        // raw word → local id, -1 for stop words
	seenDoc  []int32          // local id → last doc+1 that used it
	slot     []int32          // local id → index into entries for that doc
	entries  []entry
	docStart []int32 // per doc, index of its first entry
	buf      []byte
	names    shardNames
	phrases  shardPhrases

	// The bilingual lexicon's English words for foreign words (addConcepts).
	concepts  *query.Concepts
	conceptOf map[int32][]int32 // local id → the local ids of its English words, for the few words that have some
	stemOf    map[int32]string  // local id → the key of the stem it begins with (Concepts.StemKey), for the few words that have one
	termKind  []uint8           // local id → what addConcepts knows of the term (kind… flags), 0 before it looked
	pairs     []int32           // the CJK character pairs read last, in order, that run on
	runWords  []query.RunWord   // addRunConcepts' buffer
	prevWord  int32             // the word before, as addConcepts reads a text (-1: none, or a character pair)
	key       []byte
}

func newShard(docs int) *shard {
	return &shard{
		vocab:    make(map[string]int32, 2048),
		raw:      newWordTable(4096),
		entries:  make([]entry, 0, docs*44),
		docStart: make([]int32, 0, docs),
		buf:      make([]byte, 0, 64),
		concepts: query.BilingualConcepts(),
	}
}

// termID returns the local id of the analysed term w, adding it when new.
func (sh *shard) termID(w []byte) int32 {
	if id, ok := sh.vocab[string(w)]; ok {
		return id
	}
	id := int32(len(sh.terms))
	t := string(w)
	sh.vocab[t] = id
	sh.terms = append(sh.terms, t)
	sh.seenDoc = append(sh.seenDoc, 0)
	sh.slot = append(sh.slot, 0)
	sh.termKind = append(sh.termKind, 0)
	return id
}

// rawTerm returns the local id of the raw lower-case word w, or -1 for a stop
// word, caching the analysis of each distinct raw word.
func (sh *shard) rawTerm(w []byte) int32 {
	h := hashWord(w)
	if id, ok := sh.raw.get(w, h); ok {
		return id
	}
	key := string(w)
	id := int32(-1)
	if t := token.SingularBytes(w); !token.IsStopBytes(t) {
		id = sh.termID(t)
	}
	sh.raw.put(key, h, id)
	return id
}

// add counts one occurrence of local term id in field f of document d.
func (sh *shard) add(d int, f int, id int32, fieldLen *[numFields]float32) *entry {
	if sh.seenDoc[id] != int32(d)+1 {
		sh.seenDoc[id] = int32(d) + 1
		sh.slot[id] = int32(len(sh.entries))
		sh.entries = append(sh.entries, entry{term: id})
	}
	e := &sh.entries[sh.slot[id]]
	if e.tf[f] < math.MaxUint8 {
		e.tf[f]++
	}
	fieldLen[f]++
	return e
}

// addText indexes the words of s, cut to at most maxBytes at a word boundary
// (0: no cap), into field f of document d, and their English words into
// fConcept when concepts says so (a text another field holds too, such as
// the description's first sentence, gives them once).
func (sh *shard) addText(d, f int, s string, maxBytes int, concepts bool, fieldLen *[numFields]float32) {
	if maxBytes > 0 && len(s) > maxBytes {
		s = s[:wordCut(s, maxBytes)]
	}
	sh.pairs, sh.prevWord = sh.pairs[:0], -1
	token.ForEachWord(s, sh.buf, func(w []byte, _ bool) {
		if id := sh.rawTerm(w); id >= 0 {
			sh.add(d, f, id, fieldLen)
			if concepts {
				sh.addConcepts(d, id, fieldLen)
			}
		}
	})
	sh.addRunConcepts(d, fieldLen)
}

// What addConcepts knows of a term (shard.termKind).
const (
	kindSeen     = 1 << iota // looked at
	kindConcepts             // has English words (shard.conceptOf)
	kindPair                 // a CJK character pair, which can be part of a longer word
	kindStem                 // begins with a stem (shard.stemOf), which can be part of a phrase of stems
)

// addConcepts indexes in fConcept of document d the English words the
// bilingual lexicon gives the word with local id. A CJK character pair is
// kept with the pairs of its run instead (addRunConcepts reads them when the
// run ends), so that an English request reaches a description written in
// another language.
func (sh *shard) addConcepts(d int, id int32, fieldLen *[numFields]float32) {
	kind := sh.termKind[id]
	if kind == 0 {
		kind = kindSeen
		t := sh.terms[id]
		if to := sh.concepts.Word(t); to != nil {
			ids := make([]int32, len(to))
			for i, w := range to {
				ids[i] = sh.termID([]byte(w))
			}
			if sh.conceptOf == nil {
				sh.conceptOf = map[int32][]int32{}
			}
			sh.conceptOf[id] = ids
			kind |= kindConcepts
			if k := sh.concepts.StemKey(t); k != "" {
				if sh.stemOf == nil {
					sh.stemOf = map[int32]string{}
				}
				sh.stemOf[id] = k
				kind |= kindStem
			}
		}
		if query.IsCJKPair(t) {
			kind |= kindPair
		}
		sh.termKind[id] = kind
	}
	if kind&kindPair == 0 {
		// Not a character pair: the run of pairs before it has ended.
		sh.addRunConcepts(d, fieldLen)
		prev := sh.prevWord
		sh.prevWord = id
		if kind&kindStem != 0 && prev >= 0 {
			// A phrase of two stems ("виртуальн* машин*"), or of a word met as
			// written and a stem ("в качеств*"), as the query reads them.
			first := sh.terms[prev]
			if sh.termKind[prev]&kindStem != 0 {
				first = sh.stemOf[prev]
			}
			sh.key = append(append(append(sh.key[:0], first...), ' '), sh.stemOf[id]...)
			if to := sh.concepts.StemPhrase(sh.key); to != nil {
				// The phrase's sense stands for the word's own.
				for _, w := range to {
					sh.add(d, fConcept, sh.termID([]byte(w)), fieldLen)
				}
				return
			}
		}
		if kind&kindConcepts != 0 {
			for _, c := range sh.conceptOf[id] {
				sh.add(d, fConcept, c, fieldLen)
			}
		}
		return
	}
	sh.prevWord = -1
	if n := len(sh.pairs); n > 0 {
		// Pairs of one run overlap by a character; pairs that do not
		// come from different runs.
		if !query.SameRun(sh.terms[sh.pairs[n-1]], sh.terms[id]) {
			sh.addRunConcepts(d, fieldLen)
		}
	}
	sh.pairs = append(sh.pairs, id)
}

// addRunConcepts indexes the English words of the CJK words of the run of
// character pairs read last (sh.pairs), and empties it. The words are chosen
// as the query chooses them (query.CoverRun): the cover that spans the most
// characters, so that a word inside a longer one (장소 in 저장소) or across
// two (行情 in 运行情况) says nothing.
func (sh *shard) addRunConcepts(d int, fieldLen *[numFields]float32) {
	if len(sh.pairs) == 0 {
		return
	}
	sh.runWords = query.CoverRun(sh.runWords[:0], len(sh.pairs), sh.concepts.MaxWords(), func(i, n int) bool {
		return sh.concepts.Phrase(sh.runKey(i, n)) != nil
	})
	// The chosen words are looked up again rather than every word found kept
	// on the way: a long run finds many more words than its cover holds.
	for _, w := range sh.runWords {
		for _, to := range sh.concepts.Phrase(sh.runKey(w.I, w.N)) {
			sh.add(d, fConcept, sh.termID([]byte(to)), fieldLen)
		}
	}
	sh.pairs = sh.pairs[:0]
}

// runKey is the lexicon key of the n pairs of the run from the i-th, in sh.key.
func (sh *shard) runKey(i, n int) []byte {
	sh.key = query.AppendKey(sh.key[:0], sh.pairs[i:i+n], func(p int32) string { return sh.terms[p] })
	return sh.key
}

// doc tokenises document d (the lo-th of the shard's first document) into the
// shard and fills in meta's name-derived fields; meta.verbTerm is left as a
// local id (or -1) for New to remap.
func (sh *shard) doc(d, lo int, doc *Doc, meta *docMeta, serverWords []string, fl [][numFields]float32) {
	fieldLen := &fl[0]
	sh.docStart = append(sh.docStart, int32(len(sh.entries)))
	meta.verbTerm = -1

	// Tool name: namespace prefixes (server words, "api", "kubectl", …) are
	// indexed but do not count as the name's own words.
	var parts, wholes []string
	token.ForEachToken(doc.Tool, sh.buf, func(w []byte, whole bool) {
		if whole {
			wholes = append(wholes, string(w))
		} else {
			parts = append(parts, string(w))
		}
	})
	core := 0
	for core < len(parts)-1 && (words.NamePrefix(parts[core]) || slices.Contains(serverWords, parts[core])) {
		core++
	}
	for i, w := range parts {
		id := sh.termID([]byte(w))
		e := sh.add(d, fName, id, fieldLen)
		if i >= core && !e.nameWord {
			e.nameWord = true
			meta.nameWords++
		}
		if i >= core && i < core+2 && meta.verb == 0 {
			if v := words.VerbClass(w); v != 0 {
				meta.verb, meta.verbTerm = v, id
			}
		}
	}
	for _, w := range wholes {
		sh.add(d, fName, sh.termID([]byte(w)), fieldLen)
	}
	sh.recordName(doc.Tool, parts[core:])
	sh.recordPhrase(parts, firstSentence(doc.Description))
	sh.addText(d, fTitle, doc.Title, 0, true, fieldLen)
	for _, w := range serverWords {
		sh.add(d, fServer, sh.termID([]byte(w)), fieldLen)
	}
	sh.addText(d, fDesc, doc.Description, maxDescBytes, true, fieldLen)
	sh.addText(d, fPurpose, firstSentence(doc.Description), 0, false, fieldLen)
	for _, p := range doc.Params {
		sh.addText(d, fParamName, p.Name, 0, true, fieldLen)
		sh.addText(d, fParamDesc, p.Description, maxParamDescBytes, true, fieldLen)
		for _, e := range p.Enum {
			sh.addText(d, fEnum, e, maxParamDescBytes, true, fieldLen)
		}
	}
}

// wordCut returns where to cut s, longer than max bytes: at the first space
// from max on, or before the first CJK character from there, as CJK text
// has no spaces between its words (and a cut anywhere inside a run costs
// only the bigram across it).
func wordCut(s string, max int) int {
	cut := max
	for cut < len(s) && s[cut] != ' ' {
		if s[cut] >= utf8.RuneSelf && utf8.RuneStart(s[cut]) {
			if r, _ := utf8.DecodeRuneInString(s[cut:]); token.IsCJK(r) || r == '\u3000' {
				break
			}
		}
		cut++
	}
	return cut
}

// maxPurposeBytes caps the first sentence of a description.
const maxPurposeBytes = 200

// firstSentence returns the description's first sentence: up to the first
// full stop followed by white space, an ideographic or full-width full stop,
// exclamation or question mark (CJK text puts no space after them), or the
// first line break, at most maxPurposeBytes cut at a character boundary.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	end := min(len(s), maxPurposeBytes)
	for i := 0; i < end; i++ {
		switch s[i] {
		case '\n':
			return s[:i]
		case '.':
			if i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\n') {
				return s[:i]
			}
		case 0xE3, 0xEF: // the first byte of 。 and of ！ ？
			if strings.HasPrefix(s[i:], "。") || strings.HasPrefix(s[i:], "！") || strings.HasPrefix(s[i:], "？") {
				return s[:i]
			}
		}
	}
	for end < len(s) && end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end]
}

// postings turns the shards' per-document entries (with global term ids)
// into per-term postings carrying the saturated BM25F term frequency, and
// computes each term's idf.
func postings(shards []*shard, fieldLen [][numFields]float32, nt int) (*postingStore, []float64) {
	n := len(fieldLen)
	var avg [numFields]float64
	for d := 0; d < n; d++ {
		for f := 0; f < numFields; f++ {
			avg[f] += float64(fieldLen[d][f])
		}
	}
	for f := range avg {
		if n > 0 {
			avg[f] /= float64(n)
		}
		if avg[f] == 0 {
			avg[f] = 1
		}
	}

	blocks := postingBlocks(n)
	count := make([]uint32, nt*blocks) // per (term, block) run
	d := 0
	for _, sh := range shards {
		for i := 0; i+1 < len(sh.docStart); i, d = i+1, d+1 {
			b := d / postingBlock
			for _, e := range sh.entries[sh.docStart[i]:sh.docStart[i+1]] {
				count[int(e.term)*blocks+b]++
			}
		}
	}
	fill := newPostingFiller(nt, n, count)
	idf := make([]float64, nt)
	for t := 0; t < nt; t++ {
		x := float64(fill.ps.len(int32(t)))
		idf[t] = math.Log(1 + (float64(n)-x+0.5)/(x+0.5))
	}
	d = 0
	for _, sh := range shards {
		for i := 0; i+1 < len(sh.docStart); i, d = i+1, d+1 {
			var norm [numFields]float64
			for f := 0; f < numFields; f++ {
				norm[f] = fieldWeight[f] / (1 - fieldB[f] + fieldB[f]*float64(fieldLen[d][f])/avg[f])
			}
			for _, e := range sh.entries[sh.docStart[i]:sh.docStart[i+1]] {
				tf := 0.0
				for f := 0; f < numFields; f++ {
					if e.tf[f] != 0 {
						tf += float64(e.tf[f]) * norm[f]
					}
				}
				fill.add(e.term, newPosting(int32(d), float32(tf/(k1+tf)), e.nameWord))
			}
		}
	}
	return fill.finish(), idf
}

// findProducts records the product words of server names: words that are not
// generic English and that are rare outside the servers bearing them.
func (ix *Index) findProducts(serverWords [][]string) {
	n := len(ix.docs)
	for sid, ws := range serverWords {
		for _, w := range ws {
			if words.GenericServerWord(w) || len(w) < 2 {
				continue
			}
			if id, ok := ix.vocab[w]; ok {
				inServer := 0
				for b := range ix.postings.blocks {
					docs, _, base, _ := ix.postings.run(id, b)
					for _, lo := range docs {
						if slices.Contains(serverWords[ix.docs[base+int32(lo)].server], w) {
							inServer++
						}
					}
				}
				outside := ix.postings.len(id) - inServer
				if others := n - inServer; others > 0 && float64(outside) > productMaxShare*float64(others) {
					continue
				}
			}
			if !slices.Contains(ix.products[w], int32(sid)) {
				ix.products[w] = append(ix.products[w], int32(sid))
			}
		}
	}
}

// wordTable is an open-addressing hash table from words to ids, faster than
// a map for the build's one-lookup-per-token hot path.
type wordTable struct {
	keys []string
	ids  []int32
	n    int
}

func newWordTable(size int) wordTable {
	c := 1
	for c < 2*size {
		c <<= 1
	}
	return wordTable{keys: make([]string, c), ids: make([]int32, c)}
}

// hashWord is 32-bit FNV-1a.
func hashWord(w []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range w {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

func (t *wordTable) get(w []byte, h uint32) (int32, bool) {
	mask := uint32(len(t.keys) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		k := t.keys[i]
		if k == "" {
			return 0, false
		}
		if k == string(w) {
			return t.ids[i], true
		}
	}
}

// put adds a key that is not in the table; keys are never empty.
func (t *wordTable) put(key string, h uint32, id int32) {
	if 2*(t.n+1) > len(t.keys) {
		old := *t
		*t = newWordTable(len(old.keys))
		for i, k := range old.keys {
			if k != "" {
				t.put(k, hashWord([]byte(k)), old.ids[i])
			}
		}
	}
	mask := uint32(len(t.keys) - 1)
	i := h & mask
	for t.keys[i] != "" {
		i = (i + 1) & mask
	}
	t.keys[i], t.ids[i] = key, id
	t.n++
}
