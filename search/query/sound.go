package query

import (
	"sort"
	"sync"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/search/token"
)

// A katakana loanword the bilingual lexicon does not list is an English word
// written by its sound (ファイル file, リポジトリ repository). Sounds reads it
// back: both the katakana and the index's English words are put into one
// sound form, consonant classes in upper case and vowels in lower case, that
// absorbs the regular changes of Japanese (epenthetic vowels, l→r, v→b,
// th→s, no r after a vowel, -er → a). The consonants alone are the
// skeleton the words are grouped by; the vowels choose among a group.

// Sounds is the English vocabulary of one index grouped by sound skeleton,
// built on first use. It is safe for concurrent use.
type Sounds struct {
	once  sync.Once
	vocab map[string]int32
	keys  []uint64 // skeleton hashes, ascending
	words []string // the vocabulary word of each key
}

// NewSounds returns the sounds of vocab's English words; the table is
// built at the first katakana lookup, so an index that never meets one pays
// nothing.
func NewSounds(vocab map[string]int32) *Sounds { return &Sounds{vocab: vocab} }

// Minimum sizes of a sound match: a word of fewer kana or consonants has
// too many English words of its sound.
const (
	minLoanKana       = 3
	minLoanConsonants = 2
	minEnglishLetters = 3
	maxEnglishLetters = 24
	// maxLoanKana is the longest run of katakana read by its sound: two
	// English words at most.
	maxLoanKana = 2 * maxEnglishLetters
)

func (t *Sounds) build() {
	type kw struct {
		k uint64
		w string
	}
	var all []kw
	var buf []byte
	for w := range t.vocab {
		if len(w) < minEnglishLetters || len(w) > maxEnglishLetters || !asciiLower(w) {
			continue
		}
		buf = englishSound(buf[:0], w)
		all = append(all, kw{skeletonHash(buf), w})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].k != all[j].k {
			return all[i].k < all[j].k
		}
		return all[i].w < all[j].w
	})
	t.keys, t.words = make([]uint64, len(all)), make([]string, len(all))
	for i, e := range all {
		t.keys[i], t.words[i] = e.k, e.w
	}
	t.vocab = nil
}

// Loanword returns the English word of the index whose sound the katakana
// word kana has, when one is clearly the nearest, or "".
func (t *Sounds) Loanword(kana string, buf []byte) (string, []byte) {
	if t == nil || kanaLetters(kana) < minLoanKana {
		return "", buf
	}
	return t.match(kana, buf)
}

func (t *Sounds) match(kana string, buf []byte) (string, []byte) {
	t.once.Do(t.build)
	buf = token.AppendRomaji(buf[:0], kana)
	n := len(buf)
	buf = kanaSound(buf, buf[:n])
	sound := buf[n:]
	if consonants(sound) < minLoanConsonants {
		return "", buf
	}
	k, cons := skeletonHash(sound), consonants(sound)
	i := sort.Search(len(t.keys), func(i int) bool { return t.keys[i] >= k })
	best, bestD, second := "", 1<<30, 1<<30
	m := len(buf)
	for ; i < len(t.keys) && t.keys[i] == k; i++ {
		buf = englishSound(buf[:m], t.words[i])
		if !sameSkeleton(buf[m:], sound) {
			continue
		}
		d := vowelDistance(sound, buf[m:])
		if d > maxVowelDistance(sound, buf[m:], cons) {
			continue
		}
		switch {
		case d < bestD:
			best, bestD, second = t.words[i], d, bestD
		case d < second:
			second = d
		}
	}
	if best == "" || bestD >= second {
		return "", buf
	}
	return best, buf
}

// maxVowelDistance is how far the vowels of a match may be from the
// katakana's: English spelling says little of its vowels, but a word whose
// vowels are mostly other ones is another word; and a skeleton of two
// consonants is shared by so many words that only the same vowels tell
// the one.
func maxVowelDistance(kana, english []byte, consonants int) int {
	if consonants <= minLoanConsonants {
		return 0
	}
	return 1 + max(vowels(kana), vowels(english))/2
}

// asciiLower reports whether w is lower-case ASCII letters only.
func asciiLower(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// kanaLetters counts the kana of a katakana word, but the small ones that
// join the letter before them.
func kanaLetters(kana string) int {
	n := 0
	for _, r := range kana {
		if !token.IsSmallKana(r) {
			n++
		}
	}
	return n
}

func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }

func consonants(s []byte) int {
	n := 0
	for _, c := range s {
		if isUpperByte(c) {
			n++
		}
	}
	return n
}

func vowels(s []byte) int { return len(s) - consonants(s) }

// skeletonHash is an FNV-1a hash of the consonants of a sound form.
func skeletonHash(s []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range s {
		if isUpperByte(c) {
			h = (h ^ uint64(c)) * 1099511628211
		}
	}
	return h
}

func sameSkeleton(a, b []byte) bool {
	i, j := 0, 0
	for {
		for i < len(a) && !isUpperByte(a[i]) {
			i++
		}
		for j < len(b) && !isUpperByte(b[j]) {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if a[i] != b[j] {
			return false
		}
		i++
		j++
	}
}

// vowelDistance is the edit distance of two sound forms of one skeleton:
// how many vowels differ.
func vowelDistance(a, b []byte) int {
	var rowBuf [2][48]int
	if len(b)+1 > len(rowBuf[0]) {
		return 1 << 20
	}
	prev, cur := rowBuf[0][:len(b)+1], rowBuf[1][:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// appendSound appends consonant class c (upper case) or vowel v, once for a
// doubled letter.
func appendSound(dst []byte, start int, c byte) []byte {
	if n := len(dst); n > start && dst[n-1] == c {
		return dst
	}
	return append(dst, c)
}

// kanaSound appends to dst the sound form of r, a romanised katakana word
// (token.AppendRomaji). Dropped are the vowels Japanese adds where English
// has none: u after a consonant, o after a final or doubled t or d, i after
// a final ch, sh or j; and y after a consonant (キュ kyu is the u of
// "computer").
func kanaSound(dst, r []byte) []byte {
	start := len(dst)
	lastDoubled := false
	for i := 0; i < len(r); i++ {
		c := r[i]
		next := byte(0)
		if i+1 < len(r) {
			next = r[i+1]
		}
		if token.IsVowel(c) {
			prevCons := len(dst) > start && isUpperByte(dst[len(dst)-1])
			end := i+1 == len(r)
			switch {
			case c == 'u' && prevCons && next != 'u':
				continue
			case c == 'o' && prevCons && (end || lastDoubled) && next != 'o' && (dst[len(dst)-1] == 'T' || dst[len(dst)-1] == 'D'):
				continue
			case c == 'i' && prevCons && end && (dst[len(dst)-1] == 'S' || dst[len(dst)-1] == 'T'):
				continue
			}
			dst = appendSound(dst, start, c)
			lastDoubled = false
			continue
		}
		lastDoubled = i > 0 && r[i-1] == c
		if len(dst) > start && isUpperByte(dst[len(dst)-1]) && (i == 0 || token.IsVowel(r[i-1])) {
			// Two consonants an epenthetic vowel parted stay two (クッキー
			// kukkii): only a consonant written doubled is one.
			start = len(dst)
		}
		switch {
		case c == 's' && next == 'h', c == 'c' && next == 'h', c == 't' && next == 's':
			i++
			if c == 's' {
				dst = appendSound(dst, start, 'S')
			} else {
				dst = appendSound(dst, start, 'T')
			}
		case c == 'y':
			// ya yu yo: the vowel; kya: the k's.
		case c == 'n' && (next == 'b' || next == 'p' || next == 'm'):
			dst = appendSound(dst, start, 'M')
		default:
			dst = appendSound(dst, start, consonantClass(c))
		}
	}
	return dst
}

// consonantClass is the class of a consonant letter of either side.
func consonantClass(c byte) byte {
	switch c {
	case 'z', 'j', 's':
		return 'S'
	case 'l', 'r':
		return 'R'
	case 'v', 'b':
		return 'B'
	case 'c', 'q', 'k':
		return 'K'
	case 'h':
		return 'F' // フ writes both hu and fu
	}
	return c - 'a' + 'A'
}

func isEnglishVowel(c byte) bool { return token.IsVowel(c) || c == 'y' }

// englishSound appends to dst the sound form of the English word w (lower
// case ASCII), spelled towards how Japanese hears it: a silent final e
// lengthens the vowel before it (file fail, code kod), -er -or -ar end in
// a, an r after a vowel is not heard, and the digraphs are their one sound.
func englishSound(dst []byte, w string) []byte {
	start := len(dst)
	n := len(w)
	end := n
	magic := byte(0) // the vowel a silent e lengthens
	switch {
	case n >= 4 && (w[n-2:] == "er" || w[n-2:] == "or" || w[n-2:] == "ar") && !isEnglishVowel(w[n-3]):
		end = n - 2
	case n >= 4 && w[n-1] == 'e' && !isEnglishVowel(w[n-2]) && token.IsVowel(w[n-3]) && (n < 5 || !isEnglishVowel(w[n-4])):
		end, magic = n-1, w[n-3]
	case n >= 4 && w[n-1] == 'e' && !isEnglishVowel(w[n-2]):
		end = n - 1
	}
	for i := 0; i < end; i++ {
		c := w[i]
		next := byte(0)
		if i+1 < end {
			next = w[i+1]
		}
		if isEnglishVowel(c) {
			switch {
			case c == 'y' && i == 0 && next != 0 && token.IsVowel(next):
				continue // a consonant y, which Japanese drops as kana do
			case c == 'y':
				c = 'i'
			case c == 'e' && next == 'e':
				i++
				c = 'i' // sheet
			case c == 'o' && next == 'o':
				i++
				c = 'u' // room, hook
			case (c == 'e' || c == 'i' || c == 'u') && next == 'r' && (i+2 >= end || !isEnglishVowel(w[i+2])):
				c = 'a' // server サーバ, first ファースト, turn ターン
			}
			if magic != 0 && i == end-2 {
				switch magic {
				case 'a', 'e':
					c = 'e'
					if magic == 'e' {
						c = 'i'
					}
				case 'i':
					dst = appendSound(dst, start, 'a')
				}
			}
			dst = appendSound(dst, start, c)
			continue
		}
		after := byte(0)
		if i+2 < end {
			after = w[i+2]
		} else if i+2 == end && end < n {
			after = w[end] // the silent e
		}
		if d, ok := digraphs[[2]byte{c, next}]; ok {
			i++
			if d != 0 {
				dst = appendSound(dst, start, d)
			}
			continue
		}
		switch {
		case c == 'x':
			dst = appendSound(appendSound(dst, start, 'K'), start, 'S')
		case (c == 't' || c == 's') && next == 'i' && i > 0 && after != 0 && token.IsVowel(after):
			// -tion -sion -tial: sh.
			i++
			dst = appendSound(dst, start, 'S')
		case c == 'c' && (next == 'e' || next == 'i' || next == 'y' || next == 0 && end < n):
			dst = appendSound(dst, start, 'S')
		case c == 'g' && (next == 0 && end < n || next == 'y'):
			dst = appendSound(dst, start, 'S')
		case c == 'd' && next == 'g' && i+2 == end && end < n:
			// the d of -dge
		case c == 'r' && (next == 0 || !isEnglishVowel(next)) && i > 0:
			// an r after a vowel is not heard
		case c == 'w' && (next == 0 || !isEnglishVowel(next)):
			dst = appendSound(dst, start, 'u')
		default:
			dst = appendSound(dst, start, consonantClass(c))
		}
	}
	if end == n-2 {
		dst = appendSound(dst, start, 'a')
	}
	return dst
}

// digraphs are the English letter pairs heard as one consonant, each with
// its class (0: not heard at all, the gh of night).
var digraphs = map[[2]byte]byte{
	{'p', 'h'}: 'F', {'s', 'h'}: 'S', {'t', 'h'}: 'S', {'c', 'h'}: 'T',
	{'g', 'h'}: 0, {'c', 'k'}: 'K', {'q', 'u'}: 'K', {'w', 'h'}: 'W',
}

// UseSounds makes s read the katakana words the bilingual lexicon does not
// know by their sound against t, the sounds of the index's vocabulary (nil:
// not at all).
func (s *Analyser) UseSounds(t *Sounds) { s.sounds = t }

// loan is a katakana loanword of the request read by its sound: the raw
// character pairs [i, e) and the English word or two it writes.
type loan struct {
	i, e  int
	words [2]string
}

// loanWeight scales the intents of a loanword read by its sound, which may
// be a word the request does not mean, against those the lexicon gives.
const loanWeight = 1.0

// minLoanPartKana is the fewest kana of each part of a compound loanword
// (ユーザー and リスト of ユーザーリスト): a shorter part (プロ, フォン) has the
// sound of too many words.
const minLoanPartKana = 3

// findLoans reads the katakana words of the run of character pairs
// raw[i:end] that no lexicon word of the run's cover touches, by their
// sound: a word clearly the sound of one English word of the index takes it,
// and one that is not may be two words written together (プルリクエスト, pull
// request), cut where both parts are.
func (s *Analyser) findLoans(i, end int) {
	if s.sounds == nil {
		return
	}
	// The run's characters: the first of each pair and the last of the last.
	s.runes = s.runes[:0]
	for j := i; j < end; j++ {
		r, _ := utf8.DecodeRuneInString(s.raw[j])
		s.runes = append(s.runes, r)
	}
	last, _ := utf8.DecodeLastRuneInString(s.raw[end-1])
	s.runes = append(s.runes, last)
	covered := func(c int) bool {
		for _, w := range s.cover {
			if w.I <= c && c <= w.I+w.N {
				return true
			}
		}
		return false
	}
	for a := 0; a < len(s.runes); {
		if !token.IsKatakana(s.runes[a]) || covered(a) {
			a++
			continue
		}
		b := a + 1
		for b < len(s.runes) && token.IsKatakana(s.runes[b]) && !covered(b) {
			b++
		}
		// A longer run is no word or two (pasted data): reading it would cost
		// each of its cuts a romanisation of the whole.
		if b-a >= 2 && b-a <= maxLoanKana {
			s.readLoan(i+a, i+b-1, string(s.runes[a:b]))
		}
		a = b
	}
}

// readLoan reads the katakana word kana, the pairs raw[i:e], by its sound.
func (s *Analyser) readLoan(i, e int, kana string) {
	if kanaLetters(kana) < minLoanKana {
		return
	}
	var w string
	if w, s.romaji = s.sounds.match(kana, s.romaji); w != "" {
		s.addLoan(loan{i: i, e: e, words: [2]string{w}})
		return
	}
	// Two words written as one: the cut where both parts are words.
	var found loan
	cuts := 0
	for c, r := range kana {
		if c == 0 || r == 'ー' || r == 'ッ' || token.IsSmallKana(r) {
			continue
		}
		left, right := kana[:c], kana[c:]
		if kanaLetters(left) < minLoanPartKana || kanaLetters(right) < minLoanPartKana {
			continue
		}
		var a, b string
		if a, s.romaji = s.sounds.match(left, s.romaji); a == "" {
			continue
		}
		if b, s.romaji = s.sounds.match(right, s.romaji); b == "" {
			continue
		}
		cuts++
		found = loan{i: i, e: e, words: [2]string{a, b}}
	}
	if cuts == 1 {
		s.addLoan(found)
	}
}

// addLoan records l. Its pairs keep their own weight: weighed down as one
// known word, they cost a whole task the tool its other words found.
func (s *Analyser) addLoan(l loan) {
	s.loans = append(s.loans, l)
}

// addLoanIntents puts the English words of the loanword read from the pair
// raw[i] on, if one was, and reports whether one was.
func (s *Analyser) addLoanIntents(i int) bool {
	for _, l := range s.loans {
		if l.i != i {
			continue
		}
		var bits uint64
		w := 1.0
		for j := i; j < l.e; j++ {
			bits |= s.rawBits[j]
			w = min(w, s.rawWeight[j])
		}
		s.origin = bits
		for _, t := range l.words {
			if t != "" {
				s.put(t, loanWeight*intentWeight*w, false)
			}
		}
		return true
	}
	return false
}
