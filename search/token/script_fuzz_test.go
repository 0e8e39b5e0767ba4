package token

import (
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// FuzzWords checks, for any text, that every word ForEachWord reports is
// non-empty valid UTF-8 made of word runes only, and that the words
// together stay within a constant factor of the normalised text (bigrams and
// whole camelCase words read each character at most twice, lower case can
// grow a letter by a byte).
func FuzzWords(f *testing.F) {
	for _, s := range []string{
		"数据库查询", "GitHub仓库", "ＧｉｔＨｕｂ", "ﾃﾞｰﾀﾍﾞｰｽ", "Погода Ёлка", "Καιρός",
		"e\u0301cole", "⚠\ufe0fWarning", "3dモデル第3章", "getFileInfo", "\xff\xfe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		total := 0
		ForEachWord(s, nil, func(w []byte, _ bool) {
			if len(w) == 0 || !utf8.Valid(w) {
				t.Fatalf("ForEachWord(%q) reported %q", s, w)
			}
			for _, r := range string(w) {
				if !IsWordRune(r) {
					t.Fatalf("ForEachWord(%q) reported %q, which holds %q", s, w, r)
				}
			}
			total += len(w)
		})
		if limit := 3 * len(norm.NFKC.String(s)); total > limit {
			t.Fatalf("ForEachWord(%q) reported %d bytes, more than %d", s, total, limit)
		}
	})
}
