package query

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/search/token"
)

// A request in Chinese, Japanese or Korean is read as overlapping character
// pairs (package token), and a pair that begins with the request's grammar
// names nothing: in 米国株の過去のチャートを見たい the pairs の過, のチ and
// たい join a particle or an ending to what follows, and in 帮我看看 or
// 重新跑一下失败 the pairs of 帮我 and 一下 only ask. Such a pair would
// otherwise count as a word of the request and meet the same grammar in any
// description written in that language, whatever the description is about.
// A pair that ends in a particle (株の, チャットに, 失败的) keeps its
// weight: the particle follows its word, and the pair is the word's end as
// a description writes it too; a pair that ends in a Japanese ending (成し
// of 生成して) is a verb's inflection and does not. So a character pair
// whose first character is grammar, or whose second begins an ending,
// weighs grammarPairWeight of a word, unless it lies inside a word the
// bilingual lexicon knows (友だち, 調べ keep their weight).
//
// Grammar is a closed set of particles, endings and asking words, not a
// script: Japanese writes words in hiragana too (ひらがな, おすすめ), and
// the okurigana of a word written with kanji (取り消し, 問い合わせ, 消す) is
// part of the word.

// grammarPairWeight is the weight, in words, of a character pair that holds
// a grammar character. Above zero, so that a request of grammar alone still
// ranks something. Tuned on the tuning halves of the labelled sets.
const grammarPairWeight = 0.1

// hanGrammar are the Han characters of Chinese that are grammar wherever
// they stand in a request: the structural particles, the sentence-final
// ones, the question words' characters and the personal pronouns. A few
// words begin or end with one (把手, 的士, 我的世界): their pairs weigh
// little unless the lexicon knows them.
var hanGrammar = map[rune]bool{
	'的': true, '了': true, '吗': true, '呢': true, '吧': true, '么': true,
	'怎': true, '哪': true, '我': true, '你': true, '您': true, '把': true,
}

// hanAlone are the Chinese prepositions and postpositions that stand as a
// run of one character beside a Latin word of the same chunk (在GitHub上,
// 用Python, 从S3, 到Slack): alone they only place the word beside them. In a
// longer run they begin words too (上海, 用户, 在线), so only alone.
var hanAlone = map[rune]bool{
	'在': true, '上': true, '里': true, '中': true, '用': true, '从': true,
	'到': true, '给': true, '和': true, '与': true, '跟': true, '对': true,
	'向': true, '将': true, '被': true,
}

// hanPlaces are the postpositions that place a Latin word right before them
// in the same chunk (GitHub上的, Kubernetes里的). They open a longer run as
// grammar only when grammar follows them: otherwise they begin a word
// (Python中文, Excel对比, Redis中间件).
var hanPlaces = map[rune]bool{'上': true, '里': true, '中': true}

// hanGrammarWords are the words of Chinese and Japanese requests that ask
// or are polite rather than name what is wanted ("help me", "a bit", "how",
// "the way to"), and the Chinese measure words after a numeral or a
// demonstrative (一个, 这只, 一封). Found anywhere in a run, each character
// of one but its last is grammar: the pair that begins at the last
// character may begin a word (统一下单, 一下午, 这个月).
var hanGrammarWords = []string{
	// Chinese.
	"帮我", "帮忙", "一下", "如何", "怎样", "什么", "哪些", "哪个", "哪里",
	"可以", "能否", "是否", "请问", "请帮", "给我", "看看", "想要",
	"有没有", "有哪些", "一个", "一些", "一条", "一封", "一张", "一份", "一篇",
	"一次", "一只", "一家", "这个", "那个", "这些", "那些", "这只", "这条",
	"这篇", "这封", "这张", "这段", "这份",
	// Japanese ("the way to").
	"仕方",
}

// koreanGrammarWords are the words of Korean requests that ask or are
// polite. Korean writes its words apart, so only a whole word is one
// (좀 is grammar, 좀비 a zombie).
var koreanGrammarWords = map[string]bool{
	"알려줘": true, "알려주세요": true, "알려": true, "해줘": true, "해주세요": true,
	"주세요": true, "보여줘": true, "어떻게": true, "싶어": true, "싶어요": true,
	"싶다": true, "좀": true,
}

// koreanEndings are the particles and verb endings of two syllables a
// Korean word of four syllables or more may end with ("서울에서",
// "추가해줘"): the syllables of its ending are grammar. (Of the endings of
// one syllable, only a verb's, koreanVerbEndings, weighs little.)
var koreanEndings = runesOf(
	"에서", "으로", "에게", "까지", "부터", "한테", "해줘", "하기", "해요", "하고",
	"하는", "해서",
)

// koreanVerbEndings are the syllables that end a Korean request's verb
// ("그려줘", "보내요"): the last pair of a word of three syllables or more
// that ends in one is the verb's ending. (다 is left out: 캐나다, 네바다.) A
// case particle ("채널에", "파일을") is the word's end and keeps its weight.
var koreanVerbEndings = map[rune]bool{'줘': true, '요': true, '죠': true}

// japaneseParticles are the Japanese particles, single and compound, that
// follow a word (株の, チャットに, 駅まで, Slackには): grammar, and a pair that
// ends in one is its word's end.
var japaneseParticles = runesOf(
	"の", "に", "を", "が", "は", "で", "と", "へ", "も", "や", "か",
	"から", "まで", "より", "など", "には", "では", "とは", "への", "での",
	"との", "にも", "でも", "ので", "のに", "けど", "として", "について",
	"による", "により", "において", "における", "ごとに", "ずつ", "だけ", "しか",
)

// japaneseEndings are the endings of Japanese verbs and adjectives a request
// ends its words with (して, ください, たい, ます) and the formal nouns after
// them (こと, ため): grammar that inflects the word before it, so the pair
// that ends in one weighs little too (成し of 生成して).
var japaneseEndings = runesOf(
	"ます", "ました", "ません", "ましょう", "ませ", "です", "でした", "でしょう",
	"ください", "して", "した", "します", "しない", "しました", "したい",
	"しています", "する", "すると", "される", "させる", "され", "させ",
	"たい", "たく", "ない", "なく", "なかった", "ている", "ています", "ていた",
	"ていない", "てる", "いて", "いた", "って",
	"った", "んで", "んだ", "れる", "られる", "られ", "れば", "たら", "なら",
	"ように", "よう", "こと", "もの", "とき", "ため", "ほしい", "だった",
)

// japaneseLinks are the endings of one character that join a verb to the
// endings after them (見てください, 読んでほしい): grammar only before another
// ending, since alone after a kanji they are okurigana too (割り当て).
var japaneseLinks = runesOf("て", "で")

// japaneseDeictic are the demonstratives and question words a stretch of
// hiragana may open with (このファイル, どこにある): grammar.
var japaneseDeictic = runesOf(
	"この", "その", "あの", "どの", "これ", "それ", "あれ", "どれ", "ここ",
	"そこ", "どこ", "どう", "どんな", "いつ", "なに", "どうやって", "どれくらい",
)

// okuriganaParticles are the particles that also begin a verb's okurigana
// after a kanji (上がる, 分かる, 最も): after a kanji and before more
// hiragana, they are read as part of the word.
var okuriganaParticles = map[rune]bool{'が': true, 'か': true, 'も': true}

// Character roles of a run, as runGrammar marks them.
const (
	roleGrammar  uint8 = 1 << iota // a pair that begins here weighs little
	roleEnding                     // a pair that ends here weighs little
	roleParticle                   // the last character of a Japanese particle
)

// grammarScratch is weighGrammarPairs' memory, kept by the Analyser so
// that a request reuses it.
type grammarScratch struct {
	chars []rune
	role  []uint8
	at    []uint8 // per raw word: pairKept, pairLight or 0 (no CJK)
	light map[string]bool
}

// What weighGrammarPairs found of a raw CJK word.
const (
	pairKept uint8 = iota + 1
	pairLight
)

// runesOf returns words as runes, longest first, so that the first match
// of a word at a place is the longest.
func runesOf(words ...string) [][]rune {
	out := make([][]rune, len(words))
	for i, w := range words {
		out[i] = []rune(w)
	}
	slices.SortStableFunc(out, func(a, b []rune) int { return len(b) - len(a) })
	return out
}

// grammarRune reports whether r, a run of one character, is grammar: a
// Japanese particle of one character or one of hanGrammar.
func grammarRune(r rune) bool {
	return hanGrammar[r] || matchAt([]rune{r}, 0, japaneseParticles) == 1
}

// weighGrammarPairs makes the CJK character pairs of the request that
// begin with a grammar character or end in an ending, and its
// one-character runs that are grammar, weigh grammarPairWeight, unless the
// run's cover (s.longest) puts the pair inside a known word or the same
// pair stands elsewhere in the request as a word.
func (s *Analyser) weighGrammarPairs() {
	if !s.hasCJK() {
		return
	}
	g := &s.gram
	if g.light == nil {
		g.light = map[string]bool{}
	}
	light := g.light
	clear(light)
	at := slices.Grow(g.at[:0], len(s.raw))[:len(s.raw)]
	clear(at)
	g.at = at
	s.eachGrammarPair(func(j int, isLight bool) {
		at[j] = pairKept
		if isLight {
			at[j] = pairLight
			light[s.sing[j]] = true
		}
	})
	// A pair kept anywhere in the request is kept.
	for j, a := range at {
		if a == pairKept {
			delete(light, s.sing[j])
		}
	}
	for t := range light {
		if qt, ok := s.weights[t]; ok {
			qt.Weight = min(qt.Weight, grammarPairWeight)
			s.weights[t] = qt
		}
		if w, ok := s.origWeight[t]; ok {
			s.origWeight[t] = min(w, grammarPairWeight)
		}
	}
}

// eachGrammarPair calls fn with the index of each CJK raw word (a pair or
// a run of one character) and whether it weighs little.
func (s *Analyser) eachGrammarPair(fn func(j int, light bool)) {
	for i := 0; i < len(s.raw); {
		r, size := utf8.DecodeRuneInString(s.raw[i])
		if size == len(s.raw[i]) {
			// A run of one character.
			if token.IsCJK(r) {
				fn(i, grammarRune(r) || hanAlone[r] && s.besideLatin(i) || s.runGrammarWord(i, i+1))
			}
			i++
			continue
		}
		if !IsCJKPair(s.raw[i]) {
			i++
			continue
		}
		end := s.pairRunEnd(i)
		role := s.runGrammar(i, end)
		covered := 0 // pairs from i below it lie inside a known word
		for j := i; j < end; j++ {
			covered = max(covered, s.longest[j])
			fn(j, j >= covered && (role[j-i]&roleGrammar != 0 || role[j-i+1]&roleEnding != 0))
		}
		i = end
	}
}

// besideLatin reports whether the raw word i has a word of another script
// than CJK right before or after it in its chunk (在GitHub, GitHub上).
func (s *Analyser) besideLatin(i int) bool {
	latin := func(j int) bool {
		return j >= 0 && j < len(s.raw) && s.rawChunk[j] == s.rawChunk[i] && !token.IsCJK(firstRune(s.raw[j]))
	}
	return latin(i-1) || latin(i+1)
}

// runGrammar returns the role of each character of the run of character
// pairs raw[a:e] (e-a+1 characters): roleGrammar for a Chinese grammar
// character (hanGrammar), each character but the last of one of
// hanGrammarWords, a Korean grammar word or the ending of a Korean word
// (koreanEndings), the particles, endings and demonstratives of Japanese and
// the last character of okurigana that ends its word (japaneseGrammar), and
// a postposition right after a Latin word (hanPlaces); roleEnding for a
// Japanese ending and a Korean verb's last syllable (koreanVerbEndings).
// The slice lives in s until the next call.
func (s *Analyser) runGrammar(a, e int) []uint8 {
	g := &s.gram
	chars := g.chars[:0]
	for j := a; j < e; j++ {
		chars = append(chars, firstRune(s.raw[j]))
	}
	last, _ := utf8.DecodeLastRuneInString(s.raw[e-1])
	chars = append(chars, last)
	g.chars = chars
	role := slices.Grow(g.role[:0], len(chars))[:len(chars)]
	clear(role)
	g.role = role
	if unicode.Is(unicode.Hangul, chars[0]) {
		koreanGrammar(chars, role, s.runGrammarWord(a, e))
		return role
	}
	for k, r := range chars {
		if hanGrammar[r] {
			role[k] |= roleGrammar
		}
		if n := matchAt(chars, k, hanGrammarWordsByFirst[r]); n > 0 {
			for m := k; m < k+n-1; m++ {
				role[m] |= roleGrammar
			}
		}
	}
	japaneseGrammar(chars, role, a > 0 && s.rawChunk[a-1] == s.rawChunk[a])
	if hanPlaces[chars[0]] && a > 0 && s.rawChunk[a-1] == s.rawChunk[a] && !token.IsCJK(firstRune(s.raw[a-1])) &&
		role[1]&roleGrammar != 0 && s.longest[a] == a {
		// 上 of Sentry上的报错.
		role[0] |= roleGrammar
	}
	return role
}

// koreanGrammar marks the roles of chars, a Korean word of two syllables or
// more: all grammar when whole (a koreanGrammarWords), else its ending.
func koreanGrammar(chars []rune, role []uint8, whole bool) {
	n := len(chars)
	if whole {
		for k := range role {
			role[k] |= roleGrammar
		}
		return
	}
	if n < 3 {
		return
	}
	if koreanVerbEndings[chars[n-1]] {
		role[n-1] |= roleEnding
	}
	for _, ws := range koreanEndings {
		if n-len(ws) >= 2 && slices.Equal(chars[n-len(ws):], ws) {
			for m := n - len(ws); m < n; m++ {
				role[m] |= roleGrammar
			}
			break
		}
	}
}

// runGrammarWord reports whether the raw words a..e-1, one run (a pair each,
// or one character alone), are one of koreanGrammarWords.
func (s *Analyser) runGrammarWord(a, e int) bool {
	r := firstRune(s.raw[a])
	if !unicode.Is(unicode.Hangul, r) {
		return false
	}
	if e == a+1 {
		return koreanGrammarWords[s.raw[a]]
	}
	// The run's text: its first character of each pair, and the last pair.
	key := s.key[:0]
	for j := a; j < e-1; j++ {
		key = utf8.AppendRune(key, firstRune(s.raw[j]))
	}
	key = append(key, s.raw[e-1]...)
	s.key = key
	return koreanGrammarWords[string(key)]
}

// japaneseGrammar marks the roles of the hiragana of chars, a run:
// each stretch of hiragana may open with a particle (after a word: afterWord
// says a Latin word of the same chunk comes before the run) or a
// demonstrative, and end in endings and a particle; what lies between is
// part of a word (the okurigana of 取り消し, 問い合わせ, 消す, and words
// written in hiragana, ひらがな, おすすめ). A stretch of one character is
// grammar only as a particle. A particle before a kanji that hiragana
// follows (を消す, を消します) is no grammar for that pair: it is all a verb
// written with kanji and okurigana shares with its other forms.
func japaneseGrammar(chars []rune, role []uint8, afterWord bool) {
	for a := 0; a < len(chars); {
		if !unicode.Is(unicode.Hiragana, chars[a]) {
			a++
			continue
		}
		b := a + 1
		for b < len(chars) && unicode.Is(unicode.Hiragana, chars[b]) {
			b++
		}
		afterHan := a > 0 && unicode.Is(unicode.Han, chars[a-1])
		h := chars[a:b]
		lo, hi := 0, len(h)
		if a > 0 || afterWord {
			if n := matchAt(h, 0, japaneseParticles); n > 0 && (n == len(h) || !afterHan || !okuriganaParticles[h[0]]) {
				markParticle(role[a:a+n], n)
				lo = n
			}
		}
		if lo == 0 {
			if n := matchAt(h, 0, japaneseDeictic); n > 0 {
				markParticle(role[a:a+n], n)
				lo = n
			}
		}
		for first := true; hi > lo && len(h) > 1; first = false {
			n, ending := matchEnd(h[lo:hi], first)
			if n == 0 {
				break
			}
			if ending {
				for m := a + hi - n; m < a+hi; m++ {
					role[m] |= roleGrammar | roleEnding
				}
			} else {
				markParticle(role[a+hi-n:a+hi], n)
			}
			hi -= n
		}
		if afterHan && lo == 0 && hi == len(h) && b < len(chars) && (len(h) > 1 || !unicode.Is(unicode.Han, chars[b])) {
			// Okurigana that ends its word (友だち全員, 行くルート): the pair
			// from its last character joins two words. (One between two
			// kanji, 取り消し, is inside a compound.)
			role[b-1] |= roleGrammar
		}
		a = b
	}
	for k := 0; k+2 < len(chars); k++ {
		if role[k]&roleParticle != 0 && unicode.Is(unicode.Han, chars[k+1]) && unicode.Is(unicode.Hiragana, chars[k+2]) {
			role[k] &^= roleGrammar
		}
	}
}

// markParticle marks role, the n characters of a particle or a
// demonstrative, as grammar, and its last as a particle's.
func markParticle(role []uint8, n int) {
	for m := range n {
		role[m] |= roleGrammar
	}
	role[n-1] |= roleParticle
}

// matchEnd returns the length of the longest Japanese ending or particle
// that h ends with, and whether it is an ending; past the first (the
// outermost), a link (japaneseLinks) too, and only particles of two
// characters or more, so that the end of a word written in hiragana
// (かかって) is not read as particles.
func matchEnd(h []rune, first bool) (n int, ending bool) {
	sets := [3][][]rune{japaneseEndings, japaneseParticles, japaneseLinks}
	for i, set := range sets {
		if first && i == 2 {
			break
		}
		for _, w := range set {
			if len(w) > n && len(w) <= len(h) && (first || i != 1 || len(w) > 1) && slices.Equal(h[len(h)-len(w):], w) {
				n, ending = len(w), i != 1
				break
			}
		}
	}
	return n, ending
}

// matchAt returns the length of the first of words (longest first) that
// chars holds at k, or 0.
func matchAt(chars []rune, k int, words [][]rune) int {
	for _, w := range words {
		if k+len(w) <= len(chars) && slices.Equal(chars[k:k+len(w)], w) {
			return len(w)
		}
	}
	return 0
}

// firstRune returns the first rune of w.
func firstRune(w string) rune {
	r, _ := utf8.DecodeRuneInString(w)
	return r
}

// hanGrammarWordsByFirst is hanGrammarWords as runes, by their first rune,
// longest first; built once and only read.
var hanGrammarWordsByFirst = func() map[rune][][]rune {
	m := map[rune][][]rune{}
	for _, ws := range runesOf(hanGrammarWords...) {
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
