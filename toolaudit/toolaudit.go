// Package toolaudit flags tool descriptions that look like prompt injections: text that
// addresses the model rather than describing the tool, mentions another server's tools,
// secrets or files outside the project, carries characters no reader sees, or is far
// longer than its siblings. It is a heuristic: a finding is a reason for the user to look,
// not proof, and nothing here changes what a tool says (the bridge shows the findings and
// registers the tool as it is).
//
// It reads a server's text as the server sent it (the cache keeps it so): the hidden
// characters are counted on the raw text, every other check runs on the text as shown
// (safetext.Sanitize), so characters hidden inside a word ("ig\u200bnore") do not hide it.
package toolaudit

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// Kind is what a finding found.
type Kind string

// Kinds, in the order a tool's findings are listed.
const (
	AddressesModel Kind = "addresses the model"
	Hidden         Kind = "carries hidden characters"
	OtherTools     Kind = "mentions another server's tool"
	Secrets        Kind = "mentions secrets or keys"
	OutsideFiles   Kind = "mentions files outside the project"
	Long           Kind = "is far longer than its siblings"
)

// Finding is one reason to look at one tool's text.
type Finding struct {
	Tool   string `json:"tool"` // the MCP tool name
	Kind   Kind   `json:"kind"`
	Detail string `json:"detail"` // what was found, as shown (sanitized, cut)
}

// String is the finding in words: `tool: kind ("detail")`, safe to show (a tool name with
// hidden characters, from a cache written before they were refused, shows them escaped).
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s (%s)", safetext.Escape(f.Tool), f.Kind, f.Detail)
}

// excerptLen bounds a finding's quote.
const excerptLen = 60

// scanLen bounds the text of one tool the patterns read: a tool that says more is far
// longer than any description anyway, and a schema of megabytes must not cost seconds.
const scanLen = 64 << 10

// Long descriptions: a tool's description is flagged when it is longer than longFloor
// bytes and than longFactor times the median of at least minSiblings siblings'.
const (
	longFloor   = 1000
	longFactor  = 5
	minSiblings = 2
)

// Server audits one server's tools. others are the other servers' tool names (by server),
// for OtherTools. The findings are in tool order, then kind order.
func Server(server string, tools []cache.Tool, others map[string][]string) []Finding {
	own := make(map[string]bool, len(tools))
	for _, t := range tools {
		own[t.Name] = true
	}
	foreign := foreignNames(server, own, others)
	lens := sortedLengths(tools)
	r := compiled()
	var out []Finding
	for i := range tools {
		t := &tools[i]
		raw := texts(t)
		shown := safetext.Sanitize(textcut.Prefix(strings.Join(raw, "\n"), scanLen))
		if m := firstMatch(r.model, shown); m != "" {
			out = append(out, Finding{t.Name, AddressesModel, quote(m)})
		}
		if n := hiddenCount(t.Name, raw); n > 0 {
			out = append(out, Finding{t.Name, Hidden, fmt.Sprintf("%d zero-width, bidi, tag or control characters", n)})
		}
		if m := foreign.find(shown); m != "" {
			out = append(out, Finding{t.Name, OtherTools, quote(m)})
		}
		if m := r.secretMention(shown); m != "" {
			out = append(out, Finding{t.Name, Secrets, quote(trimPath(m))})
		}
		if m := firstMatch(r.outside, shown); m != "" {
			out = append(out, Finding{t.Name, OutsideFiles, quote(trimPath(m))})
		}
		if n, median, ok := tooLong(len(t.Description), lens); ok {
			out = append(out, Finding{t.Name, Long, fmt.Sprintf("%d bytes; its siblings' median is %d", n, median)})
		}
	}
	return out
}

// texts are a tool's texts a reader or the model sees: title, description, annotation
// title, and every string of its input schema (descriptions, titles, enums, defaults);
// of a schema longer than scanLen, its first scanLen bytes as they are (not decoded).
func texts(t *cache.Tool) []string {
	out := []string{textcut.Prefix(t.Title, scanLen), textcut.Prefix(t.Description, scanLen)}
	if t.Annotations != nil {
		out = append(out, textcut.Prefix(t.Annotations.Title, scanLen))
	}
	if len(t.InputSchema) > scanLen {
		return append(out, textcut.Prefix(string(t.InputSchema), scanLen))
	}
	var v any
	if json.Unmarshal(t.InputSchema, &v) == nil {
		out = appendStrings(out, v)
	}
	return out
}

// appendStrings appends every string of a decoded JSON value (keys too: they are
// parameter names the model reads).
func appendStrings(out []string, v any) []string {
	switch x := v.(type) {
	case string:
		out = append(out, x)
	case []any:
		for _, e := range x {
			out = appendStrings(out, e)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = appendStrings(append(out, k), x[k])
		}
	}
	return out
}

// hiddenCount counts the hidden characters of a tool's name and texts.
func hiddenCount(name string, texts []string) int {
	n := safetext.Hidden(name)
	for _, s := range texts {
		n += safetext.Hidden(s)
	}
	return n
}

// trimPath is a path as matched without the punctuation of the sentence around it.
func trimPath(m string) string {
	return strings.TrimRight(strings.TrimSpace(m), ".,;:!?")
}

// quote is a match as a finding shows it.
func quote(s string) string {
	return `"` + textcut.Truncate(strings.Join(strings.Fields(s), " "), excerptLen) + `"`
}

// firstMatch is the first text any of patterns finds in s ("" when none).
func firstMatch(patterns []*regexp.Regexp, s string) string {
	for _, p := range patterns {
		if m := p.FindString(s); m != "" {
			return m
		}
	}
	return ""
}

// modelPatterns are what a description says when it speaks to the model instead of
// describing the tool: pseudo-tags, orders to drop earlier instructions, and secrecy
// from the user. Phrasings a plain description uses ("you must pass an id") are not here.
var modelPatterns = []string{
	`<\s*/?\s*(important|system|instructions?|admin|secret|hidden|context)\s*>`,
	`\[\s*/?\s*(inst|system)\s*\]`,
	`\b(ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(previous|prior|above|earlier|other|all|any|your|system|safety)\b[^.\n]{0,30}\b(instructions?|prompts?|rules|directions|guidelines|messages|policies|restrictions)\b`,
	`\b(do not|don't|never|must not|should not)\s+(tell|inform|mention|show|reveal|disclose|alert|notify|let)\b[^.\n]{0,40}\buser\b`,
	`\bwithout\s+(telling|informing|asking|notifying|alerting|showing)\s+(the\s+)?user\b`,
	`\b(the\s+)?user\s+(must|should|need)\s*(not|n't)\s+(know|see|be told|notice|find out)\b`,
	`\b(system prompt|new instructions|you are now|from now on,? you|act as (an?|the) )`,
}

// outsidePatterns are paths outside any project: the home directory and system places.
var outsidePatterns = []string{
	`(^|[\s'"\x60(=:])(~/|\$HOME\b|\$\{HOME\}|%USERPROFILE%|%APPDATA%)[^\s'"\x60)<>]*`,
	`(^|[\s'"\x60(=:])(/etc/|/root/|/home/[\w.-]+/|/Users/[\w.-]+/|[a-z]:\\users\\)[^\s'"\x60)<>]*`,
	`(^|[\s'"\x60(=:])(\.\./){2,}[^\s'"\x60)<>]*`,
}

// secretFiles are where keys and credentials are kept; naming one is a finding by itself.
var secretFiles = []string{
	`\.ssh\b[^\s'"\x60)<>]*`,
	`\bid_(rsa|dsa|ecdsa|ed25519)\b`,
	`\.aws/(credentials|config)\b`,
	`\.(netrc|npmrc|pypirc|pgpass|git-credentials)\b`,
	`\.docker/config\.json\b`,
	`\.kube/config\b`,
	`\bmcp\.json\b`,
	`\.config/gh/hosts\.yml\b`,
	`(^|[\s'"\x60(/])\.env(\.\w+)?\b`,
	`\b(private key|seed phrase|recovery phrase|mnemonic phrase|wallet seed)s?\b`,
}

// secretWords name secrets; they are a finding only in a sentence that also moves data
// somewhere (a tool that takes an API key is common, one that asks to send it is not).
const (
	secretWords = `(?i)\b(api[ _-]?keys?|access[ _-]tokens?|auth(entication)?[ _-]tokens?|secret[ _-]keys?|passwords?|passphrases?|credentials|session cookies?|environment variables)\b`
	moveWords   = `(?i)\b(send|include|upload|forward|share|post|attach|append|exfiltrate|leak|copy|embed|encode|put)\b`
	sentenceEnd = `[.!?\n]+`
)

// rules are the audit's patterns, compiled on the first audit: a bridge that never audits
// (its cache is fresh, nobody asks for /mcp <server>) does not keep them in memory.
type rules struct {
	model, outside, secretFiles         []*regexp.Regexp
	secretWords, moveWords, sentenceEnd *regexp.Regexp
}

var compiled = sync.OnceValue(func() *rules {
	return &rules{model: compile(modelPatterns...), outside: compile(outsidePatterns...), secretFiles: compile(secretFiles...),
		secretWords: regexp.MustCompile(secretWords), moveWords: regexp.MustCompile(moveWords), sentenceEnd: regexp.MustCompile(sentenceEnd)}
})

// secretMention is what names a secret in s ("" when nothing does).
func (r *rules) secretMention(s string) string {
	if m := firstMatch(r.secretFiles, s); m != "" {
		return m
	}
	for _, sentence := range r.sentenceEnd.Split(s, -1) {
		if m := r.secretWords.FindString(sentence); m != "" && r.moveWords.MatchString(sentence) {
			return sentence
		}
	}
	return ""
}

// compile compiles case-insensitive patterns.
func compile(patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(`(?i)` + p)
	}
	return out
}

// foreign is what names another server's tool: the registered names' prefixes of the
// other servers (mcp__<server>__) and their distinctive tool names.
type foreign struct {
	prefix *regexp.Regexp // mcp__<x>__ for any x
	own    string         // this server's prefix
	names  *regexp.Regexp // nil when there are none
}

// foreignNames builds what finds the other servers' tools in a text: their registered
// names, and those of their tool names distinctive enough not to be a plain word (with a
// '_', '-' or '.', at least 5 bytes) that this server has no tool of.
func foreignNames(server string, own map[string]bool, others map[string][]string) foreign {
	f := foreign{prefix: regexp.MustCompile(`\bmcp__([A-Za-z0-9]+(?:_[A-Za-z0-9]+)*)__`), own: registeredPrefix(server)}
	var alts []string
	for o, names := range others {
		if o == server {
			continue
		}
		for _, n := range names {
			if len(n) >= 5 && strings.ContainsAny(n, "_-.") && !own[n] {
				alts = append(alts, regexp.QuoteMeta(n))
			}
		}
	}
	if len(alts) > 0 {
		sort.Strings(alts)
		alts = slices.Compact(alts)
		f.names = regexp.MustCompile(`(^|[^A-Za-z0-9_.-])(` + strings.Join(alts, "|") + `)($|[^A-Za-z0-9_-])`)
	}
	return f
}

// registeredPrefix is the start of the server's registered names (catalog.Prefix and
// catalog.Sanitize's mapping onto [A-Za-z0-9_]).
func registeredPrefix(server string) string {
	b := []byte(server)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return "mcp__" + string(b) + "__"
}

// find is the first mention of another server's tool in s ("" when none).
func (f foreign) find(s string) string {
	for _, m := range f.prefix.FindAllString(s, -1) {
		if m != f.own {
			return m
		}
	}
	if f.names != nil {
		if m := f.names.FindStringSubmatch(s); m != nil {
			return m[2]
		}
	}
	return ""
}

// sortedLengths is every tool's description length in ascending order: the siblings'
// median for any one tool is read from it, so a server's tools are sorted once, not once
// per long description.
func sortedLengths(tools []cache.Tool) []int {
	lens := make([]int, len(tools))
	for i := range tools {
		lens[i] = len(tools[i].Description)
	}
	slices.Sort(lens)
	return lens
}

// tooLong reports whether a description of n bytes is far longer than its siblings' (lens:
// sortedLengths of the server's tools, n among them), with the siblings' median.
func tooLong(n int, lens []int) (_, median int, ok bool) {
	if n <= longFloor || len(lens)-1 < minSiblings {
		return n, 0, false
	}
	// The siblings are lens without one n: below its first place the same, from it on
	// shifted by one.
	p, _ := slices.BinarySearch(lens, n)
	k := (len(lens) - 1) / 2
	if k < p {
		median = lens[k]
	} else {
		median = lens[k+1]
	}
	return n, median, n > longFactor*median
}
