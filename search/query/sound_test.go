package query

import "testing"

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
		"template", "webhook", "token", "tokyo", "market", "cookie", "cake",
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
		{"クッキー", "cookie"},
		{"トークン", "token"},
		{"マーケット", "market"},
		{"クッキー", "cookie"},
		// Guards: Japanese words, too short, or sounds of no index word.
		{"ファイル", "file"}, // fire has no r Japanese hears
		{"ワクワク", ""},
		{"カタカナ", ""},
		{"ドキドキ", ""},
		{"エラ", ""},
		{"ヤバイ", ""},
	} {
		if got, _ := s.Loanword(tc.kana, nil); got != tc.want {
			t.Errorf("Loanword(%s) = %q, want %q", tc.kana, got, tc.want)
		}
	}
}
