package search_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/search"
	"github.com/zot-mcp/mcp-bridge/search/query"
	"github.com/zot-mcp/mcp-bridge/search/token"
)

// lexiconCoverFloor is the least share of the catalogs' frequent foreign
// words (catalogWords) the bilingual lexicon must cover, so that a
// description's words that reached English requests cannot silently stop
// doing so. It sits some way below the share the lexicon covers: dropping
// an entry found to have a wrong sense, or a catalog adding tools with words
// of their own, must not trip it, while losing a block of entries does.
// Raise it when entries are added.
const lexiconCoverFloor = 0.80

// notWordChars are Chinese characters that join words rather than make
// them (particles, conjunctions, demonstratives): a character pair with one
// of them is two words' edges, not a word, so it is not counted as one.
var notWordChars = map[rune]bool{
	'的': true, '了': true, '和': true, '与': true, '或': true, '及': true,
	'被': true, '把': true, '于': true, '也': true, '都': true, '就': true,
	'这': true, '那': true,
}

// functionWords are Chinese and Japanese words of grammar (how, whether,
// must, directly, for example, all, other, usually, ...) that say nothing a
// tool does: they are no content words, so they are not counted, and like a
// known word they take their characters, so the pairs that straddle them
// and a known word are not counted as gaps either.
var functionWords = map[string]bool{
	"通过": true, "根据": true, "需要": true, "必须": true, "是否": true, "不要": true,
	"直接": true, "例如": true, "比如": true, "不传": true, "即可": true, "均可": true,
	"无需": true, "不需": true, "不能": true, "不会": true, "不是": true, "一个": true,
	"如果": true, "否则": true, "可以": true, "可能": true, "同时": true, "所有": true,
	"全部": true, "其他": true, "其它": true, "其中": true, "其余": true, "通常": true,
	"如需": true, "此时": true, "仅在": true, "仅用": true, "只能": true, "之后": true,
	"之间": true, "之前": true, "以下": true, "因此": true, "并且": true, "而非": true,
	"而是": true, "即使": true, "至少": true, "最多": true, "进行": true, "每个": true,
	"以及": true, "以便": true, "由于": true, "所以": true, "但是": true, "然后": true,
	"或者": true, "还是": true, "已经": true, "自己": true, "自身": true, "某个": true,
	"任何": true, "任意": true, "各自": true, "重新": true, "配合": true, "当作": true,
	"无法": true, "哪些": true, "才能": true, "两种": true, "始终": true, "本次": true,
	"第几": true, "完全": true, "改用": true, "同一": true, "没有": true, "場合": true,
	"不再": true, "不可": true, "不用": true, "不得": true, "一次": true, "一律": true,
	"仍然": true, "从此": true, "多个": true, "只有": true, "只是": true, "真正": true,
	"大多": true, "多数": true, "常见": true, "知道": true, "希望": true, "作为": true,
	"认为": true, "如实": true, "场合": true,
	// Said of every tool (use, call, note): the lexicon leaves them out, as
	// their English words are stop words or bring a sense no tool means.
	"使用": true, "调用": true, "注意": true,
}

// glueChars are Chinese characters that are words of grammar standing alone
// (when, please, may, will, then, must, only, by, after, before, at, not,
// from, to...). Where a run's cover leaves one of them out of every known
// word, it stands alone there, so a pair it makes with the next word's
// first character is two words' edges, not a gap. Some of them also begin
// or end content words (用 in 使用 and 可用, 上下 in 上下文): a pair of two
// of them is not counted at all, and one of them next to a gap counts as
// covered. Without them the gaps listed are mostly pairs across a word's
// edge (请用, 先用), which list nothing to write an entry from.
const glueChars = "时请传可会则须该要已仅为先再按后前用在不将从向给对由并且等中上下若即而又还每各本此其之所以非未需应能得着过到来让使做是有无"

func isGlue(r rune) bool { return strings.ContainsRune(glueChars, r) }

// catalogWord is one character pair of the foreign-described tools' texts.
type catalogWord struct {
	pair    string
	tools   map[int]bool // docs whose texts have it
	seen    int          // times it occurs
	covered int          // times both its characters lie in a word the lexicon knows there
}

// catalogWords reads the texts (description, parameter descriptions) of the
// tools whose descriptions are mostly in a script other than Latin, cut into
// character pairs as the index cuts them (token.ForEachWord, runs joined by
// query.SameRun), and returns each pair that could be a word (no kana of
// grammar, no notWordChars) with where it occurs and how often the lexicon
// covers it. A run is covered as the index covers it (query.CoverRun: known
// words longest first, none overlapping) with two differences the index
// does not make: functionWords take their characters as known words do, and
// a glueChars character left out of every chosen word counts as covered. A
// word whose senses are all stop words takes its characters, as in the
// index, but covers none of them. A pair that straddles two known words is
// covered (both its characters lie in known words), and one with a
// character no known word takes is not. Latin-script foreign descriptions
// (German, Spanish) cannot be told from English by script, and Cyrillic and
// Hangul ones are read the same way as Han if a catalog has them.
func catalogWords(docs []search.Doc) map[string]*catalogWord {
	concepts := query.BilingualConcepts()
	out := map[string]*catalogWord{}
	var key []byte
	for d, doc := range docs {
		if mainScript([]string{doc.Description}) == "latin" {
			continue
		}
		texts := []string{doc.Description}
		for _, p := range doc.Params {
			texts = append(texts, p.Description)
		}
		for _, text := range texts {
			var run []string
			flush := func() {
				if len(run) == 0 {
					return
				}
				in := make([]bool, len(run)+1) // characters of the run in a known word
				for _, w := range query.CoverRun(nil, len(run), concepts.MaxWords(), func(i, n int) bool {
					key = query.AppendKey(key[:0], run[i:i+n], func(s string) string { return s })
					return concepts.Phrase(key) != nil || functionWords[runText(run[i:i+n])]
				}) {
					key = query.AppendKey(key[:0], run[w.I:w.I+w.N], func(s string) string { return s })
					if senses := concepts.Phrase(key); senses != nil && !slices.ContainsFunc(senses, isContent) {
						continue // it takes its characters, as in the index, but gives no term
					}
					for c := w.I; c <= w.I+w.N; c++ {
						in[c] = true
					}
				}
				for i, p := range run {
					if !couldBeWord(p) || functionWords[p] {
						continue
					}
					a, sz := utf8.DecodeRuneInString(p)
					b, _ := utf8.DecodeRuneInString(p[sz:])
					if isGlue(a) && isGlue(b) {
						continue
					}
					in[i] = in[i] || isGlue(a)
					in[i+1] = in[i+1] || isGlue(b)
					w := out[p]
					if w == nil {
						w = &catalogWord{pair: p, tools: map[int]bool{}}
						out[p] = w
					}
					w.tools[d] = true
					w.seen++
					if in[i] && in[i+1] {
						w.covered++
					}
				}
				run = run[:0]
			}
			token.ForEachWord(text, nil, func(b []byte, _ bool) {
				w := string(b)
				if !query.IsCJKPair(w) {
					flush()
					return
				}
				if n := len(run); n > 0 && !query.SameRun(run[n-1], w) {
					flush()
				}
				run = append(run, w)
			})
			flush()
		}
	}
	return out
}

// isContent reports whether the English word w is a search term: a sense
// that is a stop word ("use", "call") reaches no tool, so a lexicon word
// with no other sense covers nothing.
func isContent(w string) bool { return !token.IsStop(w) }

// runText is the text of a run of overlapping character pairs.
func runText(pairs []string) string {
	var b strings.Builder
	for i, p := range pairs {
		if i == 0 {
			b.WriteString(p)
			continue
		}
		_, size := utf8.DecodeRuneInString(p)
		b.WriteString(p[size:])
	}
	return b.String()
}

// couldBeWord reports whether the character pair p could be a word of its
// own: Han, katakana or Hangul only (a hiragana character is grammar: an
// ending, a particle), and no character of notWordChars.
func couldBeWord(p string) bool {
	for _, r := range p {
		if unicode.Is(unicode.Hiragana, r) || notWordChars[r] {
			return false
		}
	}
	return utf8.RuneCountInString(p) == 2
}

// frequentUncovered returns the words of ws that occur in at least two
// tools, split into those the lexicon covers (in at least half of their
// occurrences) and those it does not, the latter most widespread first.
func frequentUncovered(ws map[string]*catalogWord) (covered int, uncovered []*catalogWord) {
	for _, w := range ws {
		switch {
		case len(w.tools) < 2:
		case 2*w.covered >= w.seen:
			covered++
		default:
			uncovered = append(uncovered, w)
		}
	}
	slices.SortFunc(uncovered, func(a, b *catalogWord) int {
		return cmp.Or(len(b.tools)-len(a.tools), b.seen-a.seen, strings.Compare(a.pair, b.pair))
	})
	return covered, uncovered
}

// TestLexiconCoversCatalogWords: of the words the foreign-described tools of
// both catalogs share (a character pair in two tools' texts or more), at
// least lexiconCoverFloor lie in words the bilingual lexicon knows, which
// the index gives English words (fConcept) so that an English request
// reaches those tools. With -v it lists the uncovered words, most
// widespread first: the list to write new entries from (general words only,
// never a tool's name).
func TestLexiconCoversCatalogWords(t *testing.T) {
	t.Parallel()
	_, _, union := unionCatalogs(t)
	covered, uncovered := frequentUncovered(catalogWords(union.docs))
	total := covered + len(uncovered)
	if total < 200 {
		t.Fatalf("only %d shared words in the foreign-described tools: the catalogs or their reading changed", total)
	}
	var b strings.Builder
	for _, w := range uncovered {
		fmt.Fprintf(&b, " %s(%d)", w.pair, len(w.tools))
	}
	t.Logf("%d of %d shared words covered; uncovered (tools):%s", covered, total, b.String())
	if share := float64(covered) / float64(total); share < lexiconCoverFloor {
		t.Errorf("the bilingual lexicon covers %.3f of the foreign-described tools' shared words, want at least %.2f; the uncovered ones are listed above", share, lexiconCoverFloor)
	}
}
