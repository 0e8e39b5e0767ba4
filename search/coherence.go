package search

import (
	"math"
	"math/bits"
)

// Server coherence: a request usually describes one domain as a whole ("what
// changed in the last three commits"), and the server whose tools together
// explain most of its words is more likely to hold the answer than a server
// one of whose tools happens to match one word strongly. Each server is
// scored as one document made of its tools: a BM25 over the query's words
// in which a word's frequency is the number of the server's tools that match
// it and its idf is taken over servers rather than tools, so that words
// naming a domain (commit, channel, pod) count and words every server uses
// (list, name, server) do not. Length normalisation is full (b = 1): a
// word's evidence is the share of the server's tools that match it,
// saturating, so that a server with a hundred tools does not explain every
// query by its size alone. Every tool of a server is multiplied by the same
// factor, so the order among one server's tools is left to the other signals.
//
// It is computed from the per-document word bits the scoring loop already
// fills, with per-server arrays only: nothing is stored per term.
//
// Its parameters were swept on testdata/tuning.json only (never on
// report.json): a weight between 0.4 and 0.7 and serverK between 3 and 10
// give alike results. Pooling by the server's best tool score, by the sum of
// its best three, or by the plain share of query words its tools cover
// (idf over tools) did not help.
const (
	// serverCoherenceBoost multiplies a tool's score by 1 +
	// serverCoherenceBoost × its server's coherence (0 to 1).
	serverCoherenceBoost = 0.5
	// serverK is the BM25 saturation of the server score: large, so that a
	// word's evidence grows almost linearly with the share of matching tools.
	serverK = 4.0
)

// serverTools counts the tools of each of n servers.
func serverTools(docs []docMeta, n int) []int32 {
	size := make([]int32, n)
	for i := range docs {
		size[docs[i].server]++
	}
	return size
}

// serverScratch holds one query's per-server accumulators: tf and words are
// zero between uses; coherence is rewritten by each serverCoherence call.
type serverScratch struct {
	coherence []float64   // server → coherence, 0 to 1
	tf        [64][]int32 // query word → server → tools of the server matching the word
	words     []uint64    // server → query words its tools match
	// most is the highest coherence of the last call.
	most float64
}

// serverCoherence scores each server by how much of the query its tools
// explain (see the comment at the top of this file) from the query words
// each touched doc matches (words, as query.Term.Origin bits), and returns
// the scores indexed by server, valid until the next call with ss; servers
// no touched doc belongs to score 0.
func (ix *Index) serverCoherence(ss *serverScratch, touched []int32, words []uint64) []float64 {
	nServers := len(ix.serverSize)
	if len(ss.coherence) < nServers {
		ss.coherence = make([]float64, nServers)
		ss.words = make([]uint64, nServers)
	}

	// Per word and server, the number of matching tools. This loop runs over
	// every matching doc, so it does the least it can.
	for _, d := range touched {
		w := words[d]
		s := ix.docs[d].server
		ss.words[s] |= w
		for b := w; b != 0; b &= b - 1 {
			i := bits.TrailingZeros64(b)
			tf := ss.tf[i]
			if len(tf) < nServers {
				tf = make([]int32, nServers)
				ss.tf[i] = tf
			}
			tf[s]++
		}
	}

	// Per word, the number of servers with a matching tool, and its idf
	// over servers.
	var df [64]int32
	var all uint64
	for _, w := range ss.words[:nServers] {
		all |= w
		for b := w; b != 0; b &= b - 1 {
			df[bits.TrailingZeros64(b)]++
		}
	}
	var idf [64]float64
	total := 0.0
	for b := all; b != 0; b &= b - 1 {
		i := bits.TrailingZeros64(b)
		n := float64(df[i])
		idf[i] = math.Log(1 + (float64(nServers)-n+0.5)/(n+0.5))
		total += idf[i]
	}

	avgTools := float64(len(ix.docs)) / float64(nServers)
	ss.most = 0
	for s, w := range ss.words[:nServers] {
		if w == 0 {
			ss.coherence[s] = 0
			continue
		}
		norm := serverK * float64(ix.serverSize[s]) / avgTools
		x := 0.0
		for b := w; b != 0; b &= b - 1 {
			i := bits.TrailingZeros64(b)
			tf := float64(ss.tf[i][s])
			x += idf[i] * tf / (tf + norm)
			ss.tf[i][s] = 0
		}
		ss.words[s] = 0
		ss.coherence[s] = x / total
		ss.most = max(ss.most, ss.coherence[s])
	}
	return ss.coherence
}
