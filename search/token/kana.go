package token

import "unicode/utf8"

// IsKatakana reports whether r is a katakana letter or the long-vowel mark.
func IsKatakana(r rune) bool { return isKatakana(r) }

// AppendRomaji appends to dst the sound of the katakana word kana in a
// Hepburn-like romanisation, which is how a loanword's English source is
// recognised by its sound: the long-vowel mark repeats the vowel before it
// (データ deeta), the small ッ doubles the next consonant (コミット komitto),
// and the small vowels and ャュョ join the letter before them into one sound
// (ファ fa, ティ ti, ウィ wi, シャ sha, キュ kyu). Letters that are no
// katakana are skipped.
func AppendRomaji(dst []byte, kana string) []byte {
	double, start := false, len(dst)
	for i := 0; i < len(kana); {
		r, size := utf8.DecodeRuneInString(kana[i:])
		i += size
		switch {
		case r == longVowelMark:
			if n := len(dst); n > start && IsVowel(dst[n-1]) {
				dst = append(dst, dst[n-1])
			}
			continue
		case r == 'ッ':
			double = true
			continue
		case r == 'ン':
			dst, double = append(dst, 'n'), false
			continue
		}
		s := kanaSounds[r]
		if s == "" {
			continue
		}
		if next, _ := utf8.DecodeRuneInString(kana[i:]); smallKana[next] && next != 'ヮ' {
			s = joinSmall(s, next)
			i += utf8.RuneLen(next)
		}
		if double && !IsVowel(s[0]) {
			if s[0] == 'c' {
				dst = append(dst, 't') // ッチ: tchi
			} else {
				dst = append(dst, s[0])
			}
		}
		dst, double = append(dst, s...), false
	}
	return dst
}

// joinSmall is the one sound of the kana sounding s with the small kana
// small after it.
func joinSmall(s string, small rune) string {
	v := smallVowel[small]
	stem := s[:len(s)-1]
	switch small {
	case 'ャ', 'ュ', 'ョ':
		switch stem {
		case "sh", "ch", "j":
			return stem + v
		}
		return stem + "y" + v
	}
	switch {
	case s == "u" || s == "vu":
		// ウィ wi, ヴァ va.
		if s == "u" {
			return "w" + v
		}
		return "v" + v
	case stem == "ts":
		return "ts" + v
	case s == "fu":
		return "f" + v
	case stem == "":
		// A vowel with a small vowel after it (イェ): the second one.
		return v
	}
	return stem + v
}

// smallVowel is the vowel each small kana gives the letter before it.
var smallVowel = map[rune]string{
	'ァ': "a", 'ィ': "i", 'ゥ': "u", 'ェ': "e", 'ォ': "o",
	'ャ': "a", 'ュ': "u", 'ョ': "o",
}

// kanaSounds is the sound of each full-size katakana letter.
var kanaSounds = map[rune]string{
	'ア': "a", 'イ': "i", 'ウ': "u", 'エ': "e", 'オ': "o",
	'ァ': "a", 'ィ': "i", 'ゥ': "u", 'ェ': "e", 'ォ': "o",
	'カ': "ka", 'キ': "ki", 'ク': "ku", 'ケ': "ke", 'コ': "ko",
	'ガ': "ga", 'ギ': "gi", 'グ': "gu", 'ゲ': "ge", 'ゴ': "go",
	'サ': "sa", 'シ': "shi", 'ス': "su", 'セ': "se", 'ソ': "so",
	'ザ': "za", 'ジ': "ji", 'ズ': "zu", 'ゼ': "ze", 'ゾ': "zo",
	'タ': "ta", 'チ': "chi", 'ツ': "tsu", 'テ': "te", 'ト': "to",
	'ダ': "da", 'ヂ': "ji", 'ヅ': "zu", 'デ': "de", 'ド': "do",
	'ナ': "na", 'ニ': "ni", 'ヌ': "nu", 'ネ': "ne", 'ノ': "no",
	'ハ': "ha", 'ヒ': "hi", 'フ': "fu", 'ヘ': "he", 'ホ': "ho",
	'バ': "ba", 'ビ': "bi", 'ブ': "bu", 'ベ': "be", 'ボ': "bo",
	'パ': "pa", 'ピ': "pi", 'プ': "pu", 'ペ': "pe", 'ポ': "po",
	'マ': "ma", 'ミ': "mi", 'ム': "mu", 'メ': "me", 'モ': "mo",
	'ヤ': "ya", 'ユ': "yu", 'ヨ': "yo", 'ャ': "ya", 'ュ': "yu", 'ョ': "yo",
	'ラ': "ra", 'リ': "ri", 'ル': "ru", 'レ': "re", 'ロ': "ro",
	'ワ': "wa", 'ヰ': "i", 'ヱ': "e", 'ヲ': "o", 'ヴ': "vu",
}
