package query

import (
	"fmt"
	"strings"
	"testing"
)

// TestLoanwordBySound: a katakana word reaches the English word it is
// written from by its sound, among near misses; a Japanese word, or one
// whose sound several English words share alike, reaches nothing.
func TestLoanwordBySound(t *testing.T) {
	vocab := map[string]int32{}
	for i, w := range []string{
		"file", "fire", "folder", "browser", "screenshot", "database", "repository",
		"deploy", "dashboard", "commit", "spreadsheet", "calendar", "test", "taste",
		"text", "pull", "request", "user", "list", "computer", "window", "message",
		"bridge", "server", "error", "query", "session", "cluster", "image", "theme",
		"template", "webhook", "sheet", "sit", "norc", "pro", "fill", "token", "tokyo", "market", "cookie", "cake",
	} {
		vocab[w] = int32(i)
	}
	s := NewSounds(vocab)
	for _, tc := range []struct{ kana, want string }{
		{"フォルダ", "folder"},
		{"ブラウザ", "browser"},
		{"スクリーンショット", "screenshot"},
		{"データベース", "database"},
		{"リポジトリ", "repository"},
		{"デプロイ", "deploy"},
		{"ダッシュボード", "dashboard"},
		{"コミット", "commit"},
		{"スプレッドシート", "spreadsheet"},
		{"カレンダー", "calendar"},
		{"テスト", "test"},
		{"テキスト", "text"},
		{"リクエスト", "request"},
		{"コンピューター", "computer"},
		{"ウィンドウ", "window"},
		{"メッセージ", "message"},
		{"サーバー", "server"},
		{"セッション", "session"},
		{"クラスタ", "cluster"},
		{"テンプレート", "template"},
		{"ウェブフック", "webhook"},
		{"トークン", "token"},
		{"マーケット", "market"},
		// Guards: Japanese words, too short, or sounds of no index word.
		{"ファイル", "file"}, // fire has no r Japanese hears
		{"ワクワク", ""},
		{"カタカナ", ""},
		{"ドキドキ", ""},
		{"エラ", ""},
		{"ヤバイ", ""},
		{"クッキー", ""},   // cookie's vowels are too far for a skeleton of two
		{"シート", ""},    // sheet and sit sound alike once the long vowel is gone
		{"ニューヨーク", ""}, // norc is no New York
		{"プロフィル", ""},  // pro and fill: parts too short to be read alone
	} {
		if got, _ := s.Loanword(tc.kana, nil); got != tc.want {
			t.Errorf("Loanword(%s) = %q, want %q", tc.kana, got, tc.want)
		}
	}
}

// TestKatakanaLoanwordReachesEnglishWord: a Japanese request's katakana
// word the lexicon does not list is read by its sound as the index's English
// word, or as two written together; a word the lexicon lists, a Japanese
// word in katakana, and an English request are read as before.
func TestKatakanaLoanwordReachesEnglishWord(t *testing.T) {
	vocab := map[string]int32{}
	for i, w := range []string{
		"snippet", "policy", "instance", "editor", "save", "create", "open", "list",
		"notion", "pro", "fill", "wake", "catch", "test", "taste", "mouseover",
	} {
		vocab[w] = int32(i)
	}
	sounds := NewSounds(vocab)
	for _, tc := range []struct {
		q          string
		want, none []string
	}{
		{q: "スニペットを保存", want: []string{"snippet"}},
		{q: "ポリシーの一覧", want: []string{"policy"}},
		{q: "インスタンスを作成", want: []string{"instance"}},
		{q: "エディタで開く", want: []string{"editor"}},
		{q: "ポリシーエディタを開く", want: []string{"policy", "editor"}},
		// Guards.
		{q: "プロフィルを見る", none: []string{"pro", "fill"}},
		{q: "ワクワクする", none: []string{"wake", "catch"}},
		{q: "カタカナで書く", none: []string{"catch"}},
		{q: "ノーションで開く", want: []string{"notion"}, none: []string{"snippet", "editor"}},
		// A word the lexicon lists is read as the lexicon says, never by its sound.
		{q: "メニューにマウスオーバー", none: []string{"mouseover"}},
	} {
		var s Analyser
		s.UseSounds(sounds)
		terms, _ := s.Analyse(tc.q, vocab, nil)
		has := map[string]bool{}
		for _, term := range terms {
			has[term.Text] = true
		}
		for _, w := range tc.want {
			if !has[w] {
				t.Errorf("%s: no term %q in %v", tc.q, w, terms)
			}
		}
		for _, w := range tc.none {
			if has[w] {
				t.Errorf("%s: term %q in %v", tc.q, w, terms)
			}
		}
	}
	// An English request is read as without the sounds.
	for _, q := range []string{"open the editor", "save a snippet of the test policy"} {
		var with, without Analyser
		with.UseSounds(sounds)
		a, _ := with.Analyse(q, vocab, nil)
		got := fmt.Sprint(a)
		b, _ := without.Analyse(q, vocab, nil)
		if want := fmt.Sprint(b); got != want {
			t.Errorf("%s: %s with sounds, %s without", q, got, want)
		}
	}
}

// TestLongKatakanaRunIsNotReadBySound: a run of katakana longer than two English
// words is pasted data, not a loanword; it is never romanised, so its cuts cost
// nothing (each cut would romanise the whole run again).
func TestLongKatakanaRunIsNotReadBySound(t *testing.T) {
	t.Parallel()
	vocab := map[string]int32{"test": 0, "snippet": 1}
	var s Analyser
	s.UseSounds(NewSounds(vocab))
	s.Analyse(strings.Repeat("ヌ", 10000), vocab, nil)
	if c := cap(s.romaji); c > 8*maxLoanKana {
		t.Errorf("romanised %d bytes of a 10,000-kana run, want at most a word's", c)
	}
}
