package needs

import "slices"

// Merge parameters, tuned on the tuning halves of the labelled requests.
const (
	// wholeShare is the share of a candidate's value that comes from the
	// ranking of the request as a whole; the rest comes from the needs it
	// answers that are not answered yet.
	wholeShare = 0.3
	// alikeCost is the share of its value a candidate loses when a result
	// already taken is of the same server and operation.
	alikeCost = 0.3
	// backing is the share of a need's weight that depends on how well the
	// request as a whole backs the need's best candidate.
	backing = 1.0
)

// Cand is one ranked candidate: a doc and its score in one ranking.
type Cand struct {
	Doc   int32
	Score float64
}

// Pick is one merged result: the doc, a score that falls with the rank, and
// the need it answers (an index into the lists given to Merge, or -1 when
// no need's ranking holds it).
type Pick struct {
	Doc   int32
	Score float64
	Need  int
}

// Merge returns at most limit docs from whole (the ranking of the request as
// a whole) and lists (the ranking of each need), best first. The first is
// whole's first; after it, each rank takes the candidate of most value: its
// share of whole's top score, plus, for each need, its share of that need's
// top score times how much of the need the results taken so far leave
// unanswered (the need answered by one result of full score is answered).
// A candidate alike (same server and operation, as alike says) to one
// taken loses alikeCost of its value. Ties go to the better whole rank,
// then the lower doc.
func Merge(whole []Cand, lists [][]Cand, limit int, alike func(a, b int32) bool) []Pick {
	type cand struct {
		doc   int32
		whole float64   // share of whole's top score
		need  []float64 // share of each need's top score
		rank  int       // rank in whole (len(whole) when absent)
	}
	var cands []cand
	at := map[int32]int{}
	add := func(d int32) *cand {
		if i, ok := at[d]; ok {
			return &cands[i]
		}
		at[d] = len(cands)
		cands = append(cands, cand{doc: d, need: make([]float64, len(lists)), rank: len(whole)})
		return &cands[len(cands)-1]
	}
	for i, c := range whole {
		p := add(c.Doc)
		p.rank = i
		if whole[0].Score > 0 {
			p.whole = c.Score / whole[0].Score
		}
	}
	for n, l := range lists {
		for _, c := range l {
			if l[0].Score > 0 {
				add(c.Doc).need[n] = c.Score / l[0].Score
			}
		}
	}
	// A need weighs by how well the request as a whole backs its best
	// candidate: a clause of context ("we are planning a trip") finds
	// tools the whole request does not want.
	weight := make([]float64, len(lists))
	sum := 0.0
	for n, l := range lists {
		weight[n] = 1
		if len(l) > 0 {
			weight[n] = (1 - backing) + backing*cands[at[l[0].Doc]].whole
		}
		sum += weight[n]
	}
	for n := range weight {
		if sum > 0 {
			weight[n] /= sum
		}
	}
	open := make([]float64, len(lists)) // how much of each need is unanswered
	for i := range open {
		open[i] = 1
	}
	taken := make([]bool, len(cands))
	var out []Pick
	for len(out) < limit && len(out) < len(cands) {
		best, bestV := -1, -1.0
		for i, c := range cands {
			if taken[i] {
				continue
			}
			v := wholeShare * c.whole
			for n, s := range c.need {
				v += (1 - wholeShare) * s * open[n] * weight[n]
			}
			for _, p := range out {
				if alike(p.Doc, c.doc) {
					v *= 1 - alikeCost
					break
				}
			}
			if len(out) == 0 && len(whole) > 0 {
				// The first place stays the whole request's best.
				v = 0
				if c.rank == 0 {
					v = 1
				}
			}
			if best < 0 || v > bestV || v == bestV && (c.rank < cands[best].rank || c.rank == cands[best].rank && c.doc < cands[best].doc) {
				best, bestV = i, v
			}
		}
		c := cands[best]
		taken[best] = true
		// The need it answers most of what is left open, or failing that
		// the need that ranks it best.
		need, gain, bestS := -1, 0.0, 0.0
		for n, s := range c.need {
			if g := s * open[n]; g > gain {
				need, gain = n, g
			}
		}
		for n, s := range c.need {
			if gain == 0 && s > bestS {
				need, bestS = n, s
			}
		}
		for n, s := range c.need {
			open[n] *= 1 - s
		}
		score := bestV
		if len(out) > 0 {
			score = min(score, out[len(out)-1].Score)
		}
		out = append(out, Pick{Doc: c.doc, Score: score, Need: need})
	}
	return slices.Clip(out)
}
