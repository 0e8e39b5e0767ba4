// Package search ranks the MCP tool catalog for mcp__search_tools.
//
// Ranking is layered: "select:a,b" returns exactly the named tools; a query
// equal to a tool's full zot name or MCP name returns those tools first; the
// rest is a field-weighted BM25 (BM25F) over the tool name (split on
// separators and camelCase), title, server name, description (and, again,
// its first sentence), parameter names and descriptions and parameter enum
// values, with query expansion from a small synonym/abbreviation table, an
// everyday-English intent lexicon ("how far" → distance, "forget" → delete)
// widened by whole semantic fields (ways of travelling, gestures on a
// screen, remembering, business and monitoring questions, source control by
// intent: "bike" → bicycling, "slider" → drag), weakly the general-English
// synonyms of words the lexicon does not cover (package thesaurus, from
// WordNet: "halt" → stop, "children" → child), file extensions (app.ts →
// typescript), the shapes of values and names (40.7128 → coordinate, 9am →
// time, v1.2.0 → version; db-1 and #ops are names whose inner words weigh
// little) and base forms of unknown inflected words; light words (take,
// give, now) weigh little and a capitalised word inside a sentence ("New
// York") is a name, not a verb; questions ("what do you remember…") take
// the reading verbs; a boost for tools of a server the query names ("in
// gitlab …"); bonuses when the query's verb matches the verb that heads the tool name,
// when the query covers the tool name's words, and by the share of the
// query's words a tool matches; server coherence (coherence.go): every
// tool is lifted by how much of the query its server's tools together
// explain, a BM25 over servers whose words are the query words each tool
// matches, so that the tools of the server that explains a request as a
// whole rise above a stray tool of another server matching one word. The
// index is a bag of words, so word order comes back in a rescoring of the
// best candidates (phrase.go): a tool gains by the share of the query's
// consecutive words (with what each stands for) that stand side by side,
// in order, in its name or its description's first sentence ("reverse
// geocode", "console messages"). Last, siblings among the best candidates
// (tools of one server whose names share words: geocode and reverse_geocode, get_namespace and list_namespaces,
// protect_branch and unprotect_branch) trade places by what sets their
// names apart: the words one has and the other lacks, whether the query
// asks for them, the number the query uses, and whether it asks to reverse
// something (sibling.go). A whole task (a request of several sentences or
// clauses) is read as the needs it states (package needs): each is ranked
// on its own and the page is merged from the rankings so that it covers
// every need rather than the siblings of one, each hit naming its need.
//
// The ranker is split by seam: package token splits text into words (for
// documents and queries alike), package words holds the word tables both
// sides share, package query reads a request into weighted terms (with the
// everyday English of package lexicon and the synonyms of package
// thesaurus), and this package builds the index and ranks it.
//
// An Index is immutable after New and safe for concurrent use.
package search

import (
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/zot-mcp/mcp-bridge/search/needs"
	"github.com/zot-mcp/mcp-bridge/search/query"
)

// Param is one top-level input parameter of a tool.
type Param struct {
	Name, Description string
	// Enum holds the parameter's allowed string values: they name what a tool
	// can do ("undo", "drain", "dark") in the tool's own words.
	Enum []string
}

// Doc is one searchable tool.
type Doc struct {
	ID          string // the zot tool name, e.g. mcp__github__create_issue (unique)
	Server      string // server name as configured, e.g. "github"
	Tool        string // MCP tool name, e.g. "create_issue"
	Title       string
	Description string
	Params      []Param
}

// Hit is one ranked result.
type Hit struct {
	Doc   int     // index into the docs given to New
	Score float64 // higher is better; exact hits score above every ranked hit
	Exact bool    // selected by name (select: or an exact ID / tool name)
	// Need names the need of a whole task (a request of several clauses)
	// the hit answers, in the request's own words ("" for a request of one
	// need). See package needs.
	Need string
}

// DefaultLimit is the number of hits Search returns when limit <= 0.
const DefaultLimit = 8

// Fields of a document, in BM25F order.
const (
	fName = iota
	fTitle
	fServer
	fDesc
	fParamName
	fParamDesc
	fEnum    // parameter enum values
	fPurpose // the description's first sentence, which says what the tool is for
	fConcept // the English words of the foreign words of the fields above (bilingual lexicon)
	numFields
)

// Ranking parameters, tuned on testdata/tuning.json (never on report.json).
const (
	k1 = 1.2
	// serverBoost multiplies the score of tools whose server the query names.
	serverBoost = 0.8
	// verbBoost multiplies the score of tools whose name starts with a verb of
	// a class the query uses.
	verbBoost = 0.1
	// coverBoost multiplies the score by 1 + coverBoost × the share of the
	// tool name's words the query matches.
	coverBoost = 0.6
	// queryCoverBoost multiplies the score by 1 + queryCoverBoost × the
	// idf-weighted share of the query's words the tool matches (directly or
	// through a synonym or intent).
	queryCoverBoost = 1.0
	// maxDescBytes caps the indexed description text: the first paragraphs
	// say what a tool does; long usage manuals only add noise and build time.
	maxDescBytes = 1000
	// maxParamDescBytes caps each parameter description.
	maxParamDescBytes = 160
	// productMaxShare: a server-name word names a product only if at most
	// this share of the other servers' tools mention it.
	productMaxShare = 0.05
)

// fieldWeight and fieldB are the BM25F weights and length normalisation of
// each field. fConcept weighs little: a word translated by the bilingual
// lexicon is evidence in one of its senses only, and a tool's own English
// words say more than another tool's translated ones.
var (
	fieldWeight = [numFields]float64{1.5, 1.5, 1.2, 1.0, 0.8, 0.25, 0.5, 1.0, 0.3}
	fieldB      = [numFields]float64{0.4, 0.4, 0.2, 0.75, 0.75, 0.75, 0.5, 0.5, 0.75}
)

// docMeta holds what the re-ranking needs per document.
type docMeta struct {
	id     string
	server int32
	verb   uint16 // verb classes of the verb heading the tool name
	// tool is the length of the MCP tool name when the ID ends with it (as the bridge's
	// IDs do), so that the name is read from id, else 0.
	tool      uint16
	verbTerm  int32 // term id of that verb
	nameWords int32 // distinct words of the tool name proper (without namespace prefixes)
}

// Index is a search index over a fixed set of Docs. It is immutable after New
// and safe for concurrent Search calls.
type Index struct {
	docs     []docMeta
	vocab    map[string]int32
	idf      []float64
	postings *postingStore
	// products maps a product word (from server names) to the servers it names.
	products map[string][]int32
	byID     docSet // lower-case ID → docs
	byTool   docSet // lower-case MCP tool name → docs, ID ascending
	// serverSize is the number of tools of each server (docMeta.server).
	serverSize []int32
	names      nameIndex
	phrases    phraseIndex
	// sounds reads a request's katakana loanwords against vocab.
	sounds *query.Sounds

	scratch sync.Pool // *scratch reused by Search (the only mutable part)
}

// scratch holds one query's per-document accumulators; they are all zero
// between uses.
type scratch struct {
	query   query.Analyser
	ids     []int32 // the query terms' ids, see termIDs
	known   []int32
	scores  []float64
	cover   []float32
	words   []uint64 // original query words matched, as query.Term.Origin bits
	touched []int32
	servers serverScratch // server coherence's accumulators (see its comment)
	best    []scored      // the best candidates' array, see topK
	phrases phraseScratch
	// exhaustive re-ranks every matching doc, however low its score: tests
	// compare with it to show that scoreBound changes no ranking.
	exhaustive bool
}

// Search ranks the indexed docs for query and returns at most limit hits
// (limit <= 0 means DefaultLimit), best first, ties broken by ID ascending.
//
//   - "select:a,b" returns exactly the docs whose ID or MCP tool name equals
//     a, b (case-insensitive), in that order, all Exact; unknown names are
//     ignored.
//   - A query equal (case-insensitive, trimmed) to a full ID or an MCP tool
//     name returns those docs first, Exact (every server's tool of that name),
//     followed by the ranked results.
//   - Otherwise, and after exact hits, docs are ranked by BM25F with query
//     expansion, server naming, verb and name-coverage bonuses, server
//     coherence and word order; docs that match no query term are not
//     returned. An empty query returns nil.
func (ix *Index) Search(query string, limit int) []Hit {
	if limit <= 0 {
		limit = DefaultLimit
	}
	q := strings.TrimSpace(query)
	if q == "" {
		return nil
	}
	if len(q) >= 7 && strings.EqualFold(q[:7], "select:") {
		return ix.selectNames(q[7:], limit)
	}

	lq := strings.ToLower(q)
	var exact []int32
	exact = append(exact, ix.byID.get(ix.docs, lq)...)
	for _, d := range ix.byTool.get(ix.docs, lq) {
		if !slices.Contains(exact, d) {
			exact = append(exact, d)
		}
	}
	// Exact hits share one score, so they follow the tie rule: ID order.
	sort.Slice(exact, func(i, j int) bool { return ix.docs[exact[i]].id < ix.docs[exact[j]].id })
	if len(exact) > limit {
		exact = exact[:limit]
	}
	ranked := ix.rank(q, limit, exact)
	if len(exact) == 0 {
		return ranked
	}
	top := 1.0
	if len(ranked) > 0 {
		top = ranked[0].Score + 1
	}
	hits := make([]Hit, 0, len(exact)+len(ranked))
	for _, d := range exact {
		hits = append(hits, Hit{Doc: int(d), Score: top, Exact: true})
	}
	hits = append(hits, ranked...)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// selectNames resolves "select:" lists. Hits keep the order of the list
// and carry descending scores (n, n-1, …, 1).
func (ix *Index) selectNames(list string, limit int) []Hit {
	var hits []Hit
	seen := map[int32]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		ds := ix.byID.get(ix.docs, name)
		if len(ds) == 0 {
			ds = ix.byTool.get(ix.docs, name)
		}
		for _, d := range ds {
			if seen[d] || len(hits) >= limit {
				continue
			}
			seen[d] = true
			hits = append(hits, Hit{Doc: int(d), Exact: true})
		}
	}
	for i := range hits {
		hits[i].Score = float64(len(hits) - i)
	}
	return hits
}

// rank scores docs with BM25F and the re-ranking bonuses and returns the best
// limit docs not in exclude.
func (ix *Index) rank(q string, limit int, exclude []int32) []Hit {
	sc, _ := ix.scratch.Get().(*scratch)
	if sc == nil {
		sc = ix.newScratch()
	}
	defer ix.scratch.Put(sc)
	q = needs.Clean(q)
	ns := needs.Split(q)
	if ns == nil {
		return ix.rankIn(sc, q, limit, exclude)
	}
	// A whole task: each need is ranked on its own and the rankings merged
	// so that the page covers every need (package needs).
	whole := ix.rankIn(sc, q, limit+needDepth, exclude)
	if len(whole) == 0 {
		return nil
	}
	cands := func(hits []Hit) []needs.Cand {
		c := make([]needs.Cand, len(hits))
		for i, h := range hits {
			c[i] = needs.Cand{Doc: int32(h.Doc), Score: h.Score}
		}
		return c
	}
	lists := make([][]needs.Cand, len(ns))
	for i, n := range ns {
		lists[i] = cands(ix.rankIn(sc, n.Text, needDepth, exclude))
	}
	picks := needs.Merge(cands(whole), lists, limit, func(a, b int32) bool {
		x, y := &ix.docs[a], &ix.docs[b]
		return x.server == y.server && x.verbTerm == y.verbTerm && x.verbTerm >= 0
	})
	out := make([]Hit, len(picks))
	for i, p := range picks {
		out[i] = Hit{Doc: int(p.Doc), Score: p.Score * whole[0].Score}
		if p.Need >= 0 {
			out[i].Need = ns[p.Need].Label
		}
	}
	return out
}

// needDepth is how many candidates each need of a whole task contributes.
const needDepth = 8

func (ix *Index) newScratch() *scratch {
	sc := &scratch{scores: make([]float64, len(ix.docs)), cover: make([]float32, len(ix.docs)), words: make([]uint64, len(ix.docs))}
	sc.query.UseSounds(ix.sounds)
	return sc
}

// rankIn is rank working in sc.
func (ix *Index) rankIn(sc *scratch, q string, limit int, exclude []int32) []Hit {
	terms, verbs := sc.query.Analyse(q, ix.vocab, ix.idf)
	// A noun used as the verb ("comment on the issue") takes the verb
	// class the tool names pair it with (denominal.go).
	denominal := false
	if lead := sc.query.Lead(); lead != "" {
		if v := ix.denominalClass(lead); v != 0 {
			verbs, denominal = v, true
		}
	}
	if len(terms) == 0 || len(ix.docs) == 0 {
		return nil
	}

	// Servers the query names.
	var named namedServers
	for _, t := range terms {
		if !t.Strong {
			continue
		}
		for _, sid := range ix.products[t.Text] {
			named.raise(sid, t.Weight)
		}
	}

	// Term ids of the query (-1: not in the index), looked up once.
	ids, inQuery := ix.termIDs(terms, sc)
	scores, cover, words := sc.scores, sc.cover, sc.words
	// touched has room for every doc the query can match and one more: the
	// scoring loop below writes each posting's doc at its end and moves the
	// end past it only for a doc not seen before, which saves a branch the
	// processor mispredicts on every posting of a later query word.
	postings := 0
	for i, t := range terms {
		if id := ids[i]; id >= 0 && t.Weight > 0 {
			postings += ix.postings.len(id)
		}
	}
	room := slices.Grow(sc.touched[:0], min(postings, len(ix.docs))+1)
	sc.touched = room
	room = room[:cap(room)]
	nTouched := 0
	// Each original query word weighs its best term's idf in the coverage.
	var wordWeight [64]float64
	total := 0.0
	for i, t := range terms {
		id := ids[i]
		if id < 0 {
			continue
		}
		for b := t.Origin; b != 0; b &= b - 1 {
			i := bits.TrailingZeros64(b)
			wordWeight[i] = max(wordWeight[i], ix.idf[id])
		}
	}
	for _, w := range wordWeight {
		total += w
	}
	for i, t := range terms {
		id := ids[i]
		if id < 0 || t.Weight <= 0 {
			continue
		}
		w := t.Weight * ix.idf[id]
		ps := ix.postings
		for b := range ps.blocks {
			docs, slots, base, at := ps.run(id, b)
			for j, lo := range docs {
				d := base + int32(lo)
				sat := ps.weight(d, slots[j], at+uint32(j))
				// Scores are never negative, so only an untouched doc's
				// score less one wraps to set the top bit.
				room[nTouched] = d
				nTouched += int((math.Float64bits(scores[d]) - 1) >> 63)
				words[d] |= t.Origin
				scores[d] += w * math.Abs(float64(sat))
				if math.Signbit(float64(sat)) {
					cover[d] += float32(t.Weight)
				}
			}
		}
	}

	touched := room[:nTouched]
	coherence := ix.serverCoherence(&sc.servers, touched, words)
	// Keep enough candidates for rescorePhrases and separateSiblings.
	keep := max(limit, siblingDepth, phraseDepth)
	top := newTopK(sc.best, keep)
	bound := math.Inf(1)
	if !sc.exhaustive {
		bound = ix.scoreBound(named, sc.servers.most, verbs, total)
	}
	for _, d := range touched {
		// This is the last use of the doc's accumulators: they are zeroed
		// here for the next query rather than in a pass of their own.
		score, cover1, words1 := scores[d], cover[d], words[d]
		scores[d], cover[d], words[d] = 0, 0, 0
		if score*bound < top.floor {
			// It cannot be kept, whatever the re-ranking factors below.
			continue
		}
		if slices.Contains(exclude, d) {
			continue
		}
		m := &ix.docs[d]
		s := score * (1 + serverCoherenceBoost*coherence[m.server])
		if b, ok := named.get(m.server); ok {
			s *= 1 + serverBoost*b
		}
		c := float64(cover1)
		if m.verb&verbs != 0 {
			// A verb of the query's class covers the name's verb when the
			// verb itself is not a query term (expansions included); a
			// verb only inferred from a noun ("comment on …") is not said,
			// so it covers nothing.
			s *= 1 + verbBoost
			if _, in := slices.BinarySearch(inQuery, m.verbTerm); !in && !denominal {
				c++
			}
		}
		if m.nameWords > 0 {
			c /= float64(m.nameWords)
			if c > 1 {
				c = 1
			}
			s *= 1 + coverBoost*c
		}
		if total > 0 {
			covered := 0.0
			for b := words1; b != 0; b &= b - 1 {
				covered += wordWeight[bits.TrailingZeros64(b)]
			}
			s *= 1 + queryCoverBoost*covered/total
		}
		top.add(scored{doc: d, score: s, id: m.id})
	}
	best := top.hits
	sc.best = best[:0]
	ix.rescorePhrases(&sc.phrases, terms, ids, best)
	ix.separateSiblings(q, terms, ids, verbs, best)
	out := make([]Hit, min(limit, len(best)))
	for i := range out {
		out[i] = Hit{Doc: int(best[i].doc), Score: best[i].score}
	}
	return out
}

type scored struct {
	doc   int32
	score float64
	id    string
}

// better reports whether a ranks before b: higher score, then lower ID.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.id < b.id
}
