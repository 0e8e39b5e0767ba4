package query

// A request may open with a noun used as a verb ("comment on the issue",
// "label the PR"); the analysis finds that word here, and the index says
// what it means (package search, denominal.go).

import "github.com/zot-mcp/mcp-bridge/search/token"

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
