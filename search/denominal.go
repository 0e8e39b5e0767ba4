package search

import (
	"github.com/zot-mcp/mcp-bridge/search/token"
	"math/bits"
)

// English makes verbs of nouns: "comment on the issue", "label the PR", "tag
// the release", "message the team", "email Bob" ask to make (create, add,
// post, send) the thing the noun names. When a request opens with such a
// word, the tools' own names say what it means: the verbs they pair the
// noun with (create_comment, add_label, send_message; take_screenshot pairs
// with no verb of making, so "screenshot the page" is left alone).

// leadSkips are words that may come before the imperative verb of a request
// ("please", "can you", "let's", "I'd like to").
var leadSkips = map[string]bool{
	"please": true, "kindly": true, "can": true, "could": true, "would": true,
	"will": true, "you": true, "let": true, "s": true, "u": true, "i": true,
	"d": true, "like": true, "want": true, "need": true, "to": true,
	"just": true, "now": true,
}

// objectStarts open the object of a verb, never the rest of a noun phrase:
// after the leading word they make it the verb ("label the issue", "comment
// on it", "bookmark this"), while "issue comments" stays a noun phrase.
var objectStarts = map[string]bool{
	"the": true, "a": true, "an": true, "this": true, "that": true,
	"these": true, "those": true, "it": true, "them": true, "him": true,
	"her": true, "me": true, "us": true, "my": true, "our": true,
	"their": true, "his": true, "its": true, "your": true, "every": true,
	"each": true, "all": true, "on": true, "to": true, "about": true,
	"for": true, "with": true, "everyone": true, "everybody": true,
}

// makingVerbs are the verb classes a noun used as a verb can stand for.
const makingVerbs = vCreate | vSend | vWrite

// denominalLead returns the word that opens the imperative of raw (lower
// case words in order) when it is used as a verb but is no verb the ranker
// knows, or "". names marks the capitalised words inside the request: a name
// after the word is its object ("email Bob").
func denominalLead(raw []string, names map[string]bool, knownVerb func(string) bool) string {
	i := 0
	for i < len(raw) && leadSkips[raw[i]] {
		i++
	}
	if i+1 >= len(raw) {
		return ""
	}
	lead, next := token.Singular(raw[i]), raw[i+1]
	if token.IsStop(lead) || questionStarts[lead] || implicitReadStarts[lead] || nounPhraseStarts[lead] ||
		lightWords[lead] || knownVerb(lead) {
		return ""
	}
	if !objectStarts[next] && !names[token.Singular(next)] {
		return ""
	}
	return lead
}

// denominalClass returns the verb classes of making that the tool names
// using term as a name word pair it with most often (create_comment,
// add_comment → create), or 0 when no name pairs it with a verb of making.
func (ix *Index) denominalClass(term string) uint16 {
	id, ok := ix.vocab[term]
	if !ok {
		return 0
	}
	var n [16]int
	for _, p := range ix.postings[id] {
		if p.sat >= 0 {
			continue // not a word of the tool name proper
		}
		m := &ix.docs[p.doc]
		if m.verbTerm == id {
			continue
		}
		for v := m.verb & makingVerbs; v != 0; v &= v - 1 {
			n[bits.TrailingZeros16(v)]++
		}
	}
	var best int
	var class uint16
	for b, c := range n {
		switch {
		case c == 0:
		case c > best:
			best, class = c, 1<<b
		case c == best:
			class |= 1 << b
		}
	}
	return class
}
