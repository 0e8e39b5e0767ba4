package search

import (
	"math"
	"slices"

	"github.com/zot-mcp/mcp-bridge/search/query"
	"github.com/zot-mcp/mcp-bridge/search/token"
	"github.com/zot-mcp/mcp-bridge/search/words"
)

// Sibling tools are tools of one server whose names share words:
// maps_geocode and maps_reverse_geocode, create_relations and
// delete_relations, list_issue_links and get_issue_link. Their scores share
// most of their evidence (the server, the shared name words, descriptions
// written from one template), so the order among them is decided by what
// little differs, often noise. separateSiblings reorders each group of
// siblings among the best candidates by what sets them apart: the words one
// name has and the other lacks. A tool gains for such a word the query asks
// for (itself, through an expansion, or as the operation the query's verb
// names) and loses for one it does not, so the plainer name wins unless the
// query asks for the extra word ("reverse", "all"); a word both names share
// in different number (list_incidents, get_incident) counts for the name
// whose number the query uses ("which incidents", "the incident"), or,
// when the query does not use the word, the number of the query's other
// words; and a name that reverses its sibling's (unprotect_branch,
// protect_branch; uninstall, install) comes first exactly when the query
// asks to reverse something ("undo", "stop protecting", "take it off",
// any request to delete). Members of a group only trade places: the slots
// the group holds, and so every other tool's rank, stay as they were.

// Sibling re-ranking parameters, tuned on testdata/tuning.json.
const (
	// siblingDepth is how many of the best candidates are compared.
	siblingDepth = 12
	// siblingGain scales the evidence that sets a tool apart from its
	// siblings: its order key is its score × exp(siblingGain × the mean,
	// over its siblings, of its distinction less theirs).
	siblingGain = 0.15
	// siblingLoss is what a distinguishing name word the query does not ask
	// for costs.
	siblingLoss = 0.7
	// siblingVerb is the least support a name's verb gets from a query verb
	// of its class (create, list, delete, …).
	siblingVerb = 0.5
	// siblingNumber is the support a shared name word gets from the query
	// using that word in the same number (singular or plural) as the name.
	siblingNumber = 3.0
	// siblingQueryNumber is that support when the query does not use the
	// word but uses another word in the same number.
	siblingQueryNumber = 1.0
	// siblingUndo is the support of a reversing name word ("unprotect")
	// when the query asks to reverse.
	siblingUndo = 1.0
)

// reversalCues are query words that ask to reverse an operation ("undo the
// approval" asks for unapprove_merge_request, not approve_merge_request).
var reversalCues = map[string]bool{
	"undo": true, "revert": true, "reverse": true, "cancel": true,
	"revoke": true, "withdraw": true, "retract": true, "reopen": true,
	"remove": true, "lift": true, "back": true, "again": true, "unset": true,
}

// nameWord is a word of a tool name proper: a term id with flags in its top
// bits.
type nameWord = int32

const (
	pluralWord   nameWord = -1 << 31 // the name uses the word in the plural
	reversesWord nameWord = 1 << 30  // the word reverses another (nameIndex.reverses)
	termMask     nameWord = reversesWord - 1
)

func termOf(w nameWord) int32 { return w & termMask }

// nameStride is how many docs share one entry of nameIndex.every.
const nameStride = 16

// nameIndex holds the words of every doc's tool name proper (without
// namespace prefixes, each once: docMeta.nameWords of them) in doc order,
// and the name words that reverse another indexed word.
type nameIndex struct {
	words    []nameWord
	every    []int32         // every[i]: index in words of doc i×nameStride's first word
	reverses map[int32]int32 // "unprotect" → "protect", as term ids
	unwords  []reversal      // while building: name words that may reverse another
}

// reversal is a name word starting with "un" and the word it would reverse.
type reversal struct {
	id   int32
	stem string
}

// shardNames is what a shard records of its docs' names.
type shardNames struct {
	words   []nameWord // local term ids
	unwords []reversal
}

// nameOf returns the name words of doc d.
func (ix *Index) nameOf(d int32) []nameWord {
	i := d / nameStride
	start := ix.names.every[i]
	for e := i * nameStride; e < d; e++ {
		start += ix.docs[e].nameWords
	}
	return ix.names.words[start : start+ix.docs[d].nameWords]
}

// recordName appends the distinct words of the tool name proper (core, in
// analysed form; the shard already has term ids for them) with their number
// in tool to the shard's names.
func (sh *shard) recordName(tool string, core []string) {
	var plural [8]int32
	np := 0
	token.ForEachWord(tool, sh.buf, func(w []byte, whole bool) {
		if whole || np == len(plural) {
			return
		}
		if s := token.SingularBytes(w); len(s) != len(w) {
			if id, ok := sh.vocab[string(s)]; ok {
				plural[np] = id
				np++
			}
		}
	})
	start := len(sh.names.words)
	for _, w := range core {
		id := sh.vocab[w]
		if indexWord(sh.names.words[start:], id) >= 0 {
			continue
		}
		if len(w) > 4 && w[:2] == "un" {
			sh.names.unwords = append(sh.names.unwords, reversal{id, w[2:]})
		}
		nw := id
		if slices.Contains(plural[:np], id) {
			nw |= pluralWord
		}
		sh.names.words = append(sh.names.words, nw)
	}
}

// reserve makes room for the name words of every shard, so that the merged array is
// made once at its length (see phraseIndex.reserve).
func (ni *nameIndex) reserve(shards []*shard) {
	n := 0
	for _, sh := range shards {
		n += len(sh.names.words)
	}
	ni.words = make([]nameWord, 0, n)
}

// addNames appends a shard's name words, remapped to global term ids.
func (ni *nameIndex) addNames(sh *shardNames, remap []int32) {
	for _, w := range sh.words {
		ni.words = append(ni.words, w&^termMask|remap[termOf(w)])
	}
	for _, u := range sh.unwords {
		ni.unwords = append(ni.unwords, reversal{remap[u.id], u.stem})
	}
}

// finishNames indexes where the docs' names start and finds the reversing words.
func (ix *Index) finishNames() {
	ni := &ix.names
	ni.every = make([]int32, 0, (len(ix.docs)+nameStride-1)/nameStride)
	at := int32(0)
	for d := range ix.docs {
		if d%nameStride == 0 {
			ni.every = append(ni.every, at)
		}
		at += ix.docs[d].nameWords
	}
	for _, u := range ni.unwords {
		if stem, ok := ix.vocab[u.stem]; ok {
			if ni.reverses == nil {
				ni.reverses = map[int32]int32{}
			}
			ni.reverses[u.id] = stem
		}
	}
	ni.unwords = nil
	if len(ni.reverses) > 0 {
		for i, w := range ni.words {
			if _, ok := ni.reverses[termOf(w)]; ok {
				ni.words[i] |= reversesWord
			}
		}
	}
}

// indexWord returns the index in ns of the word with term id, or -1.
func indexWord(ns []nameWord, id int32) int {
	for i, w := range ns {
		if termOf(w) == id {
			return i
		}
	}
	return -1
}

// querySupport is what a query asks for, as the sibling comparison needs it.
type querySupport struct {
	verbs uint16
	undo  bool // the query asks to reverse an operation
	// The words the query uses in the plural and in the singular (as
	// many as fit; a request has fewer).
	plural, single   [24]int32
	nplural, nsingle int
}

func (s *querySupport) pluralOf(id int32) bool { return slices.Contains(s.plural[:s.nplural], id) }
func (s *querySupport) singleOf(id int32) bool { return slices.Contains(s.single[:s.nsingle], id) }

// readWords records the number in which q uses each indexed word and
// whether q asks to reverse an operation.
func (ix *Index) readWords(q string, s *querySupport) {
	// Asking to delete is asking to reverse: "remove the old release"
	// asks for uninstall rather than install.
	s.undo = s.verbs&words.VDelete != 0
	var stopping, taking bool
	token.ForEachWord(q, nil, func(w []byte, whole bool) {
		if whole {
			return
		}
		// "stop protecting": stop or quit before a gerund asks to undo;
		// so does "take … off".
		if stopping && len(w) > 5 && string(w[len(w)-3:]) == "ing" ||
			taking && string(w) == "off" || reversalCues[string(w)] {
			s.undo = true
		}
		stopping = string(w) == "stop" || string(w) == "quit"
		taking = taking || string(w) == "take"
		n := len(w)
		sg := token.SingularBytes(w)
		id, ok := ix.vocab[string(sg)]
		if !ok {
			return
		}
		if _, rev := ix.names.reverses[id]; rev {
			// "unprotect the branch" names the reversal itself.
			s.undo = true
		}
		switch {
		case len(sg) != n && s.nplural < len(s.plural):
			s.plural[s.nplural] = id
			s.nplural++
		case len(sg) == n && s.nsingle < len(s.single):
			s.single[s.nsingle] = id
			s.nsingle++
		}
	})
}

// candidate is a best candidate's name as the sibling comparison reads it.
type candidate struct {
	words    []nameWord
	sup      []float64 // per word: how strongly the query asks for it
	reverser bool      // a word reverses another (reversesWord)
}

// stem returns the term that name word w reverses, or -1.
func (ix *Index) stem(w nameWord) int32 {
	if w&reversesWord == 0 {
		return -1
	}
	return ix.names.reverses[termOf(w)]
}

// distinction is how much the query asks for what sets a apart from its
// sibling b: the support of each name word a has and b lacks, less
// siblingLoss for each such word the query does not ask for, plus the
// number support of the words they share in different number.
func (ix *Index) distinction(s *querySupport, a, b *candidate) float64 {
	v := 0.0
	for i, w := range a.words {
		id := termOf(w)
		if k := indexWord(b.words, id); k >= 0 {
			if (w < 0) != (b.words[k] < 0) {
				plural, single := s.pluralOf(id), s.singleOf(id)
				switch {
				case plural != single:
					if plural == (w < 0) {
						v += siblingNumber
					}
				case !plural && (w < 0) == (s.nplural > 0):
					v += siblingQueryNumber
				}
			}
			continue
		}
		sup := a.sup[i]
		if st := ix.stem(w); st >= 0 && indexWord(b.words, st) >= 0 {
			// a undoes what b does: whether the query asks to reverse
			// decides.
			sup = 0
			if s.undo {
				sup = siblingUndo
			}
		} else if s.undo && ix.reversedBy(id, b.words) {
			// b undoes what a does, and the query asks to reverse.
			sup = 0
		}
		if sup > 0 {
			v += sup
		} else {
			v -= siblingLoss
		}
	}
	return v
}

// reversedBy reports whether one of ns reverses term id.
func (ix *Index) reversedBy(id int32, ns []nameWord) bool {
	for _, x := range ns {
		if ix.stem(x) == id {
			return true
		}
	}
	return false
}

// reverses reports whether a's name reverses a word of b's.
func (ix *Index) reverses(a, b []nameWord) bool {
	for _, w := range a {
		if st := ix.stem(w); st >= 0 && indexWord(b, st) >= 0 {
			return true
		}
	}
	return false
}

// separateSiblings reorders each group of siblings among the best
// candidates c (best first) of query q by what sets them apart (see the top
// of this file).
// ids holds each term's id (-1: not in the index), as termIDs returns them.
func (ix *Index) separateSiblings(q string, terms []query.Term, ids []int32, verbs uint16, c []scored) {
	n := min(len(c), siblingDepth)
	// Only a candidate sharing its server with another can have a sibling,
	// so only those names are read.
	var srv [siblingDepth]int32
	for i := 0; i < n; i++ {
		srv[i] = ix.docs[c[i].doc].server
	}
	var cs [siblingDepth]candidate
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if j != i && srv[j] == srv[i] {
				cs[i].words = ix.nameOf(c[i].doc)
				break
			}
		}
	}
	// Groups: connected components of "same server, names share a word",
	// each labelled by its first member. Whether the query's words are
	// needed (for the number of a shared word, or to reverse) is noted on
	// the way.
	var group, size [siblingDepth]int
	grouped, readQuery := false, false
	for i := 0; i < n; i++ {
		group[i] = i
		for j := 0; j < i; j++ {
			if srv[i] != srv[j] {
				continue
			}
			shared := false
			for _, w := range cs[i].words {
				if k := indexWord(cs[j].words, termOf(w)); k >= 0 {
					shared = true
					readQuery = readQuery || (w < 0) != (cs[j].words[k] < 0)
				}
			}
			if !shared || group[j] == group[i] {
				continue
			}
			grouped = true
			from, to := max(group[i], group[j]), min(group[i], group[j])
			for k := 0; k <= i; k++ {
				if group[k] == from {
					group[k] = to
				}
			}
		}
	}
	if !grouped {
		return
	}
	for i := 0; i < n; i++ {
		size[group[i]]++
	}
	for i := 0; i < n; i++ {
		if size[group[i]] > 1 {
			for _, w := range cs[i].words {
				cs[i].reverser = cs[i].reverser || w&reversesWord != 0
			}
			readQuery = readQuery || cs[i].reverser
		}
	}

	s := querySupport{verbs: verbs}
	if readQuery {
		ix.readWords(q, &s)
	}
	// The query's support for each word of a grouped candidate: the
	// weight of the query term, or the verb's class.
	var supBuf [siblingDepth * 6]float64
	sup := supBuf[:]
	// groupedIDs has the bit id%64 of every grouped candidate's word ids, so
	// that most query terms are passed over with one test.
	var groupedIDs uint64
	for i := 0; i < n; i++ {
		if size[group[i]] < 2 {
			continue
		}
		k := len(cs[i].words)
		if k > len(sup) {
			sup = make([]float64, max(k, siblingDepth*6))
		}
		cs[i].sup, sup = sup[:k:k], sup[k:]
		m := &ix.docs[c[i].doc]
		for j, w := range cs[i].words {
			groupedIDs |= 1 << (termOf(w) & 63)
			if termOf(w) == m.verbTerm && m.verb&verbs != 0 {
				// The operation the query asks for names the verb.
				cs[i].sup[j] = siblingVerb
			}
		}
	}
	for k, t := range terms {
		id := ids[k]
		if t.Weight <= 0 || id < 0 || groupedIDs&(1<<(id&63)) == 0 {
			continue
		}
		for i := 0; i < n; i++ {
			for j, w := range cs[i].sup {
				if termOf(cs[i].words[j]) == id {
					cs[i].sup[j] = max(w, t.Weight)
				}
			}
		}
	}

	var dist [siblingDepth][siblingDepth]float64 // dist[i][j]: distinction of i from j
	for i := 0; i < n; i++ {
		if size[group[i]] < 2 {
			continue
		}
		for j := 0; j < n; j++ {
			if i != j && group[i] == group[j] {
				dist[i][j] = ix.distinction(&s, &cs[i], &cs[j])
			}
		}
	}
	var key [siblingDepth]float64
	for i := 0; i < n; i++ {
		key[i] = c[i].score
		if size[group[i]] < 2 {
			continue
		}
		// Only siblings have a distinction; the rest would add zeros.
		pair := 0.0
		for j := 0; j < n; j++ {
			if group[j] == group[i] {
				pair += dist[i][j] - dist[j][i]
			}
		}
		if pair != 0 {
			key[i] *= math.Exp(siblingGain * pair / float64(size[group[i]]-1))
		}
	}
	// A tool that reverses a sibling comes before it exactly when the query
	// asks to reverse: the two swap keys when they are the other way round.
	for i := 0; i < n && readQuery; i++ {
		if !cs[i].reverser {
			continue
		}
		for j := 0; j < n; j++ {
			if i == j || group[i] != group[j] || !ix.reverses(cs[i].words, cs[j].words) {
				continue
			}
			first, second := i, j
			if !s.undo {
				first, second = j, i
			}
			if key[first] < key[second] {
				key[first], key[second] = key[second], key[first]
			}
		}
	}
	// Within each group, members take the group's slots in key order.
	var slots, members [siblingDepth]int
	var picked [siblingDepth]scored
	for g := 0; g < n; g++ {
		if size[g] < 2 {
			continue
		}
		m := 0
		for j := g; j < n; j++ {
			if group[j] == g {
				slots[m] = j
				m++
			}
		}
		if m < 2 {
			continue
		}
		copy(members[:m], slots[:m])
		// Insertion sort: a group holds at most siblingDepth members.
		for x := 1; x < m; x++ {
			for y := x; y > 0; y-- {
				a, b := members[y], members[y-1]
				if key[a] < key[b] || key[a] == key[b] && c[a].id >= c[b].id {
					break
				}
				members[y], members[y-1] = b, a
			}
		}
		for k := 0; k < m; k++ {
			picked[k] = c[members[k]]
			picked[k].score = c[slots[k]].score
		}
		for k := 0; k < m; k++ {
			c[slots[k]] = picked[k]
		}
	}
}
