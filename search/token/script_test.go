package token

import (
	"reflect"
	"strings"
	"testing"
)

// words returns ForEachWord's words of s, a whole camelCase word marked "*".
func words(s string) []string {
	var out []string
	ForEachWord(s, nil, func(w []byte, whole bool) {
		t := string(w)
		if whole {
			t += "*"
		}
		out = append(out, t)
	})
	return out
}

func TestScriptWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"Han run as bigrams", "数据库查询", []string{"数据", "据库", "库查", "查询"}},
		{"Han two characters", "天气", []string{"天气"}},
		{"Han single character kept", "书 と 本", []string{"书", "と", "本"}},
		{"Han runs apart at punctuation", "查询天气，返回结果。", []string{"查询", "询天", "天气", "返回", "回结", "结果"}},
		{"Hiragana", "けんさく", []string{"けん", "んさ", "さく"}},
		{"Katakana with prolonged sound mark", "データベース", []string{"デー", "ータ", "タベ", "ベー", "ース"}},
		{"Kana and Han in one run", "検索する", []string{"検索", "索す", "する"}},
		{"Katakana word's final long vowel dropped", "サーバーを再起動", []string{"サー", "ーバ", "バを", "を再", "再起", "起動"}},
		{"Katakana word written without it", "サーバを再起動", []string{"サー", "ーバ", "バを", "を再", "再起", "起動"}},
		{"Katakana final long vowel at the run's end", "ユーザー", []string{"ユー", "ーザ"}},
		{"long vowel after one sound kept", "バー", []string{"バー"}},
		{"final long vowel of a word of three sounds and a particle", "コーヒーを", []string{"コー", "ーヒ", "ヒを"}},
		{"long vowel inside a word kept", "データ", []string{"デー", "ータ"}},
		{"long vowel after two sounds kept", "エラー", []string{"エラ", "ラー"}},
		{"エラー stays apart from エラスティック", "エラスティック", []string{"エラ", "ラス", "ステ", "ティ", "ィッ", "ック"}},
		{"small kana is no sound of its own", "ショー", []string{"ショ", "ョー"}},
		{"キュー keeps its long vowel", "キューを", []string{"キュ", "ュー", "ーを"}},
		{"ヴァー keeps its long vowel", "ヴァー", []string{"ヴァ", "ァー"}},
		{"small kana word of two sounds", "シャワー", []string{"シャ", "ャワ", "ワー"}},
		{"small ッ is a sound", "チェッカー", []string{"チェ", "ェッ", "ッカ"}},
		{"three sounds after a kanji", "再エラー", []string{"再エ", "エラ", "ラー"}},
		{"half-width long vowel", "ｻｰﾊﾞｰ", []string{"サー", "ーバ"}},
		{"Hangul", "검색합니다", []string{"검색", "색합", "합니", "니다"}},
		{"Hangul words apart at spaces", "주식 시세", []string{"주식", "시세"}},
		{"full-width Latin", "ＧｉｔＨｕｂ", []string{"git", "hub", "github*"}},
		{"full-width digits", "ｖ２", []string{"v2"}},
		{"half-width katakana", "ﾃﾞｰﾀﾍﾞｰｽ", []string{"デー", "ータ", "タベ", "ベー", "ース"}},
		{"Latin then Han", "GitHub仓库", []string{"git", "hub", "github*", "仓库"}},
		{"Han then Latin", "仓库GitHub", []string{"仓库", "git", "hub", "github*"}},
		{"Latin digits then Kana", "3dモデル", []string{"3d", "モデ", "デル"}},
		{"digit between Han", "第3章", []string{"第", "3", "章"}},
		{"Latin then Cyrillic", "APIключ", []string{"api", "ключ"}},
		{"Cyrillic lower-cased", "Погода", []string{"погода"}},
		{"Cyrillic yo folded", "Ёлка счёт", []string{"елка", "счет"}},
		{"Cyrillic camelCase", "ПолучитьДанные", []string{"получить", "данные", "получитьданные*"}},
		{"Greek final sigma and accents", "Καιρός ΚΑΙΡΟΣ", []string{"καιροσ", "καιροσ"}},
		{"Greek diaeresis", "Ευρωπαϊκός", []string{"ευρωπαικοσ"}},
		{"combining accent composed", "e\u0301cole", []string{"école"}},
		{"variation selector is no letter", "⚠\ufe0fWarning", []string{"warning"}},
		{"Latin with accents unchanged", "Größe ändern", []string{"größe", "ändern"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := words(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ForEachWord(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestScriptWordsNotStemmed checks that the English plural folding, which
// strips an ASCII "s", leaves other scripts' words alone.
func TestScriptWordsNotStemmed(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"погода прогнозы":   {"погода", "прогнозы"},
		"Файлы":             {"файлы"},
		"λέξεις":            {"λεξεισ"},
		"ファイルs":             {"ファ", "ァイ", "イル"},     // the trailing "s" is a stop word
		"archivos ficheros": {"archivo", "fichero"}, // Latin script: folded as before
	}
	for in, want := range tests {
		if got := tokens(in); !reflect.DeepEqual(got, want) {
			t.Errorf("tokens(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBigramsLinear counts the work of reading a run of 10,000 CJK
// characters: one bigram per character after the first, each two characters
// long, and as many allocations as for a run a tenth as long. It is not
// parallel: AllocsPerRun needs the process to itself.
func TestBigramsLinear(t *testing.T) {
	run := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteRune(rune(0x4E00 + i*7919%20000))
		}
		return b.String()
	}
	long, short := run(10000), run(1000)
	calls, bytes := 0, 0
	ForEachWord(long, nil, func(w []byte, whole bool) {
		calls++
		bytes += len(w)
		if whole || len([]rune(string(w))) != 2 {
			t.Fatalf("word %q (whole %v) is not a bigram", w, whole)
		}
	})
	if calls != 9999 || bytes != 9999*6 {
		t.Errorf("10,000 characters gave %d words of %d bytes, want 9999 of %d", calls, bytes, 9999*6)
	}
	buf := make([]byte, 0, 64)
	allocs := func(s string) float64 {
		return testing.AllocsPerRun(5, func() { ForEachWord(s, buf, func([]byte, bool) {}) })
	}
	if a, b := allocs(short), allocs(long); b > a {
		t.Errorf("allocations grow with the run: %v for 1,000 characters, %v for 10,000", a, b)
	}

}
