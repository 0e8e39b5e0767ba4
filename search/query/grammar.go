package query

import (
	"unicode"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/search/token"
)

// A request in Chinese, Japanese or Korean is read as overlapping character
// pairs (package token), and a pair that begins with the request's grammar
// names nothing: in 米国株の過去のチャートを見たい the pairs の過, のチ, を見
// and たい join a particle or an ending to what follows, and in 帮我看看 or
// 重新跑一下失败 the pairs of 帮我 and 一下 only ask. Such a pair would
// otherwise count as a word of the request and meet the same grammar in any
// description written in that language, whatever the description is about.
// A pair that ends in a particle (株の, チャットに, 失败的) keeps its
// weight: the particle follows its word, and the pair is the word's end as
// a description writes it too; a pair that ends in a Japanese inflection
// (成し of 生成して) is a verb's ending and does not. So a character pair
// whose first character is grammar, or whose second is an inflection,
// weighs grammarPairWeight of a word, unless it lies inside a word the
// bilingual lexicon knows (友だち, 調べ keep their weight).

// grammarPairWeight is the weight, in words, of a character pair that holds
// a grammar character. Above zero, so that a request of grammar alone still
// ranks something. Tuned on the tuning halves of the labelled sets.
const grammarPairWeight = 0.1

// hanGrammar are the Han characters of Chinese that are grammar wherever
// they stand in a request: the structural particles, the sentence-final
// ones, the question words' characters and the personal pronouns. None
// starts or ends a word tools use (目的 and 了解 are no words of tool text).
var hanGrammar = map[rune]bool{
	'的': true, '了': true, '吗': true, '呢': true, '吧': true, '么': true,
	'怎': true, '哪': true, '我': true, '你': true, '您': true, '把': true,
}

// hanAlone are the Chinese prepositions and postpositions that stand as a
// run of one character between the Latin words of a request (在GitHub上,
// 用Python, 从S3, 到Slack): alone they only place the word beside them. In a
// longer run they begin words too (上海, 用户, 在线), so only alone.
var hanAlone = map[rune]bool{
	'在': true, '上': true, '里': true, '中': true, '用': true, '从': true,
	'到': true, '给': true, '和': true, '与': true, '跟': true, '对': true,
	'向': true, '将': true, '被': true,
}

// grammarWords are the words of Chinese, Japanese and Korean requests that
// ask or are polite rather than name what is wanted ("help me", "a bit",
// "how", "the way to", "please tell me"), and the Chinese measure words
// after a numeral or a demonstrative (一个, 这只, 一封): each character of
// one is a grammar character.
var grammarWords = []string{
	// Chinese (方法, "the way to", is Japanese too).
	"帮我", "帮忙", "一下", "如何", "怎样", "什么", "哪些", "哪个", "哪里",
	"可以", "能否", "是否", "请问", "请帮", "给我", "看看", "想要", "方法",
	"有没有", "有哪些", "一个", "一些", "一条", "一封", "一张", "一份", "一篇",
	"一次", "一只", "一家", "这个", "那个", "这些", "那些", "这只", "这条",
	"这篇", "这封", "这张", "这段", "这份",
	// Japanese (hiragana is grammar wherever it stands, see grammarRune;
	// 方法 is above).
	"仕方",
	// Korean (whole words; a word's particle or ending is koreanEndings).
	"알려줘", "알려주세요", "알려", "해줘", "해주세요", "주세요", "보여줘",
	"방법", "어떻게", "싶어", "싶어요", "싶다", "좀",
}

// koreanEndings are the particles and verb endings of two syllables a
// Korean word of four syllables or more may end with ("서울에서",
// "추가해줘"): the syllables of its ending are grammar. (Of the endings of
// one syllable, only a verb's, koreanVerbEndings, weighs little.)
var koreanEndings = []string{
	"에서", "으로", "에게", "까지", "부터", "한테", "해줘", "하기", "해요", "하고",
	"하는", "해서",
}

// grammarRune reports whether r is grammar wherever it stands: a hiragana
// character (Japanese writes its particles, endings and inflections in
// hiragana, and its words in kanji and katakana) or one of hanGrammar.
func grammarRune(r rune) bool {
	return unicode.Is(unicode.Hiragana, r) || hanGrammar[r]
}

// weighGrammarPairs makes the CJK character pairs of the request that
// begin with a grammar character or end in an inflection, and its
// one-character runs that are grammar, weigh grammarPairWeight, unless the run's cover (s.longest) puts
// the pair inside a known word or the same pair stands elsewhere in the
// request as a word.
func (s *Analyser) weighGrammarPairs() {
	if !s.hasCJK() {
		return
	}
	keep := map[string]bool{}
	var light []string
	for i := 0; i < len(s.raw); {
		r, size := utf8.DecodeRuneInString(s.raw[i])
		if size == len(s.raw[i]) {
			// A run of one character.
			if token.IsCJK(r) && (grammarRune(r) || hanAlone[r] || s.grammarWord([]rune(s.raw[i]))) {
				light = append(light, s.sing[i])
			}
			i++
			continue
		}
		if !IsCJKPair(s.raw[i]) {
			i++
			continue
		}
		end := i + 1
		for end < len(s.raw) && IsCJKPair(s.raw[end]) && SameRun(s.raw[end-1], s.raw[end]) {
			end++
		}
		gram, infl := s.runGrammar(i, end)
		covered := 0 // pairs from i below it lie inside a known word
		for j := i; j < end; j++ {
			covered = max(covered, s.longest[j])
			if j < covered || !gram[j-i] && !infl[j-i+1] {
				keep[s.sing[j]] = true
			} else {
				light = append(light, s.sing[j])
			}
		}
		i = end
	}
	for _, t := range light {
		if keep[t] {
			continue
		}
		if qt, ok := s.weights[t]; ok {
			qt.Weight = min(qt.Weight, grammarPairWeight)
			s.weights[t] = qt
		}
		if w, ok := s.origWeight[t]; ok {
			s.origWeight[t] = min(w, grammarPairWeight)
		}
	}
}

// runGrammar returns, per character of the run of character pairs raw[a:e]
// (e-a+1 characters), whether it is grammar (gram: a grammarRune, a
// character of one of grammarWords or of a Korean word's two-syllable
// ending, koreanEndings, or a postposition that opens the run right after a
// word of another script, 上 of Sentry上) and whether it inflects the
// character before it (infl: Japanese hiragana other than a case particle,
// the last syllable of a Korean word of three or more that is a verb
// ending, koreanVerbEndings).
func (s *Analyser) runGrammar(a, e int) (gram, infl []bool) {
	chars := make([]rune, 0, e-a+1)
	for j := a; j < e; j++ {
		r, _ := utf8.DecodeRuneInString(s.raw[j])
		chars = append(chars, r)
	}
	last, _ := utf8.DecodeLastRuneInString(s.raw[e-1])
	chars = append(chars, last)
	gram, infl = make([]bool, len(chars)), make([]bool, len(chars))
	for k, r := range chars {
		gram[k] = grammarRune(r)
		infl[k] = k > 0 && unicode.Is(unicode.Hiragana, r) && !caseParticles[r]
	}
	if a > 0 && hanAlone[chars[0]] && !token.IsCJK(firstRune(s.raw[a-1])) {
		gram[0] = true
	}
	for k, r := range chars {
		for _, ws := range grammarWordsByFirst[r] {
			if k+len(ws) <= len(chars) && equalRunes(chars[k:k+len(ws)], ws) {
				for m := k; m < k+len(ws); m++ {
					gram[m] = true
				}
			}
		}
	}
	if unicode.Is(unicode.Hangul, chars[0]) && len(chars) >= 3 {
		n := len(chars)
		infl[n-1] = koreanVerbEndings[chars[n-1]]
		for _, w := range koreanEndings {
			ws := []rune(w)
			if n-len(ws) >= 2 && equalRunes(chars[n-len(ws):], ws) {
				for m := n - len(ws); m < n; m++ {
					gram[m] = true
				}
				break
			}
		}
	}
	return gram, infl
}

// firstRune returns the first rune of w.
func firstRune(w string) rune {
	r, _ := utf8.DecodeRuneInString(w)
	return r
}

// grammarWord reports whether chars is one of grammarWords.
func (s *Analyser) grammarWord(chars []rune) bool {
	for _, ws := range grammarWordsByFirst[chars[0]] {
		if equalRunes(ws, chars) {
			return true
		}
	}
	return false
}

// grammarWordsByFirst is grammarWords as runes, by their first rune; built
// once and only read.
var grammarWordsByFirst = func() map[rune][][]rune {
	m := map[rune][][]rune{}
	for _, w := range grammarWords {
		ws := []rune(w)
		m[ws[0]] = append(m[ws[0]], ws)
	}
	return m
}()

// hasCJK reports whether a raw word of the request is CJK.
func (s *Analyser) hasCJK() bool {
	for _, w := range s.raw {
		if token.IsCJK(firstRune(w)) {
			return true
		}
	}
	return false
}

func equalRunes(a, b []rune) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// caseParticles are the hiragana particles that follow a word as it
// stands (チャットに, 株の, メッセージを): a pair ending in one is the end of
// the word before it, as a description writes it too. Other hiragana after
// a character inflects it (成し of 生成して is a verb's ending).
var caseParticles = map[rune]bool{
	'の': true, 'に': true, 'を': true, 'が': true, 'は': true, 'で': true,
	'と': true, 'へ': true, 'も': true, 'や': true,
}

// koreanVerbEndings are the syllables that end a Korean verb of a request
// ("그려줘", "보내요", "만들다") and no common noun of three syllables
// (사용자 and 카메라 end in others): the last pair of such a word is the
// verb's ending. A case particle ("채널에", "파일을") is the word's end and
// keeps its weight.
var koreanVerbEndings = map[rune]bool{
	'줘': true, '요': true, '다': true, '죠': true,
}
