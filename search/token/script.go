package token

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Text in scripts other than Latin. A run of letters that is not plain ASCII
// is analysed here, the same way for documents and queries:
//
//   - It is first brought to NFKC, so that full-width Latin letters and
//     digits ("ＧｉｔＨｕｂ") meet their ASCII forms, half-width katakana
//     ("ﾃﾞｰﾀ") meets full-width ("データ"), and a letter written with a
//     combining accent meets the precomposed letter.
//   - It is cut where the script changes ("GitHub仓库" → "GitHub" | "仓库"),
//     so a product name written against Chinese text stays a word of its
//     own.
//   - Han, Hiragana, Katakana and Hangul are written without spaces between
//     words, and telling words apart needs a dictionary per language. Their
//     runs are indexed as overlapping pairs of characters instead (the CJK
//     bigram approach): "数据库查询" → 数据 据库 库查 查询, and a query's run
//     the same way, so a two-character word of a query matches inside a
//     longer run of a description. A run of one character is kept as it is.
//   - Greek and Cyrillic are words like Latin ones, lower-cased, with the
//     letter variants readers treat as one folded together (final sigma,
//     Greek accents, Cyrillic ё); no English plural folding reaches them,
//     as it only strips an ASCII "s".
//
// Everything else keeps the Latin path: camelCase splitting and lower case.

// scriptClass is what the analysis needs to know of a rune's script.
type scriptClass uint8

const (
	scriptNeutral  scriptClass = iota // digits and combining marks: they join the word they stand in
	scriptLatin                       // Latin, and letters of scripts not named below
	scriptGreek                       // Greek and Coptic
	scriptCyrillic                    // Cyrillic
	scriptCJK                         // Han, Hiragana, Katakana, Hangul: read as character bigrams
)

// classOf returns the script class of a letter, digit or mark r.
func classOf(r rune) scriptClass {
	switch {
	case r < utf8.RuneSelf:
		if '0' <= r && r <= '9' {
			return scriptNeutral
		}
		return scriptLatin
	case IsCJK(r):
		return scriptCJK
	case unicode.IsDigit(r), unicode.IsMark(r):
		return scriptNeutral
	case 0x370 <= r && r <= 0x3FF, 0x1F00 <= r && r <= 0x1FFF:
		return scriptGreek
	case 0x400 <= r && r <= 0x52F, 0x1C80 <= r && r <= 0x1C8F, 0x2DE0 <= r && r <= 0x2DFF, 0xA640 <= r && r <= 0xA69F:
		return scriptCyrillic
	}
	return scriptLatin
}

// IsCJK reports whether r is a letter of a script written without spaces
// between words that the index reads as character bigrams: Han, Hiragana,
// Katakana (with the prolonged sound mark, which belongs to no script of its
// own) and Hangul.
func IsCJK(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case 0x4E00 <= r && r <= 0x9FFF, // CJK Unified Ideographs, the bulk of Han
		0x3040 <= r && r <= 0x30FF, // Hiragana, Katakana
		0xAC00 <= r && r <= 0xD7A3: // Hangul syllables
		return true
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// IsWordRune reports whether r belongs in a word: a letter, a digit or a
// combining mark (which carries an accent or a vowel sign of the letter
// before it). Variation selectors only choose a glyph and are left out, so
// "⚠️Warning" is the word "warning".
func IsWordRune(r rune) bool {
	if unicode.IsLetter(r) || unicode.IsDigit(r) {
		return true
	}
	return unicode.IsMark(r) && !isVariationSelector(r)
}

func isVariationSelector(r rune) bool {
	return 0xFE00 <= r && r <= 0xFE0F || 0xE0100 <= r && r <= 0xE01EF || 0x180B <= r && r <= 0x180D
}

// splitScripts reports the words of run, a run of word runes that is not
// plain ASCII (see the top of this file); normal says run is already NFKC.
// It returns buf for reuse.
func splitScripts(run string, buf []byte, normal bool, fn func(w []byte, whole bool)) []byte {
	if !normal && !norm.NFKC.IsNormalString(run) {
		// Normalising can turn letters into separators ("㈱" → "(株)") or
		// into ASCII ("ＧｉｔＨｕｂ" → "GitHub"): the result is read anew.
		return EachWord(norm.NFKC.String(run), buf, true, fn)
	}
	start, class := 0, scriptNeutral
	for i := 0; i < len(run); {
		r, size := utf8.DecodeRuneInString(run[i:])
		c := classOf(r)
		switch {
		case c == scriptNeutral:
			// A digit after a CJK run starts a word of its own; a mark
			// stays with the letter it belongs to.
			if class == scriptCJK && !unicode.IsMark(r) {
				buf = scriptWord(run[start:i], class, buf, fn)
				start, class = i, scriptNeutral
			}
		case class == scriptNeutral:
			// Leading digits join the first script's word ("3d"), but not a
			// CJK one.
			if c == scriptCJK && start < i {
				buf = scriptWord(run[start:i], class, buf, fn)
				start = i
			}
			class = c
		case c != class:
			buf = scriptWord(run[start:i], class, buf, fn)
			start, class = i, c
		}
		i += size
	}
	return scriptWord(run[start:], class, buf, fn)
}

// scriptWord reports the words of seg, a piece of a run in one script class.
func scriptWord(seg string, class scriptClass, buf []byte, fn func(w []byte, whole bool)) []byte {
	// Marks with no letter before them carry nothing.
	for len(seg) > 0 {
		r, size := utf8.DecodeRuneInString(seg)
		if !unicode.IsMark(r) {
			break
		}
		seg = seg[size:]
	}
	switch {
	case seg == "":
		return buf
	case class == scriptCJK:
		return bigrams(seg, buf, fn)
	case class == scriptGreek || class == scriptCyrillic:
		return splitRun(seg, buf, func(w []byte, whole bool) {
			foldLetters(w)
			fn(w, whole)
		})
	}
	return splitRun(seg, buf, fn)
}

// bigrams reports the overlapping pairs of characters of seg, a CJK run, or
// its one character; combining marks inside it are skipped, and so is the
// long-vowel mark that ends a katakana word (longVowelMark). It takes time
// and space linear in seg.
func bigrams(seg string, buf []byte, fn func(w []byte, whole bool)) []byte {
	var prev rune
	n, sounds := 0, 0 // sounds: of the katakana word that ends at prev
	for i, r := range seg {
		if unicode.IsMark(r) {
			continue
		}
		if r == longVowelMark && sounds >= minLongVowelSounds && !katakanaAt(seg, i+len(string(longVowelMark))) {
			// サーバー and サーバ, ユーザー and ユーザ are one word.
			continue
		}
		switch {
		case !isKatakana(r):
			sounds = 0
		case !smallKana[r]:
			sounds++
		}
		if n > 0 {
			buf = utf8.AppendRune(utf8.AppendRune(buf[:0], prev), r)
			fn(buf, false)
		}
		prev = r
		n++
	}
	if n == 1 {
		buf = utf8.AppendRune(buf[:0], prev)
		fn(buf, false)
	}
	return buf[:0]
}

// longVowelMark is the katakana prolonged sound mark. Japanese writes the
// long vowel at the end of a loanword of three sounds or more both with and
// without it (サーバー and サーバ, ユーザー and ユーザ, フォルダー and フォルダ,
// by the two spelling conventions in use), so it is dropped there, on both
// the index's side and the query's; inside a word (データ) and after fewer
// sounds (バー, エラー, ショー) it stays: the word would keep one pair, the
// first of longer words (エラ of エラスティック, ショ of ショップ).
const longVowelMark = 'ー'

// minLongVowelSounds is the fewest sounds before a final long-vowel mark
// that drop it: the mark and the other letters each one, a small kana
// (ョ of ショー) none, since it joins the letter before it into one sound.
const minLongVowelSounds = 3

// smallKana are the small katakana that join the letter before them into
// one sound (シ and ョ are the one sound ショ). The small ッ is a sound of its
// own.
var smallKana = map[rune]bool{
	'ァ': true, 'ィ': true, 'ゥ': true, 'ェ': true, 'ォ': true,
	'ャ': true, 'ュ': true, 'ョ': true, 'ヮ': true,
}

// IsSmallKana reports whether r is a small katakana that joins the letter
// before it into one sound.
func IsSmallKana(r rune) bool { return smallKana[r] }

// isKatakana reports whether r is a katakana letter or the long-vowel mark
// (which Unicode counts as common to both kana).
func isKatakana(r rune) bool { return r == longVowelMark || unicode.Is(unicode.Katakana, r) }

// katakanaAt reports whether seg holds a katakana letter at byte offset i.
func katakanaAt(seg string, i int) bool {
	if i >= len(seg) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(seg[i:])
	return isKatakana(r)
}

// foldLetters folds, in place, the lower-case Greek and Cyrillic letters
// that readers treat as one letter onto it: final sigma onto sigma, Greek
// vowels with an accent or diaeresis onto the plain vowel, ё onto е. Every
// fold keeps the letter's UTF-8 length.
func foldLetters(w []byte) {
	for i := 0; i < len(w); {
		r, size := utf8.DecodeRune(w[i:])
		if f, ok := letterFolds[r]; ok {
			utf8.EncodeRune(w[i:], f)
		}
		i += size
	}
}

// letterFolds maps each folded lower-case letter onto its plain form.
var letterFolds = map[rune]rune{
	'ς': 'σ',
	'ά': 'α', 'έ': 'ε', 'ή': 'η', 'ί': 'ι', 'ό': 'ο', 'ύ': 'υ', 'ώ': 'ω',
	'ΐ': 'ι', 'ΰ': 'υ', 'ϊ': 'ι', 'ϋ': 'υ',
	'ё': 'е',
}

// Normalized returns s in NFKC, and s itself when it already is (plain
// ASCII always is), so that a query's word shapes ("ｎｏｔｅｓ．ｍｄ") read
// as they do in ASCII.
func Normalized(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return norm.NFKC.String(s)
		}
	}
	return s
}
