package token

import "testing"

func TestAppendRomaji(t *testing.T) {
	for _, tc := range []struct{ kana, want string }{
		{"ファイル", "fairu"},
		{"データベース", "deetabeesu"},
		{"コミット", "komitto"},
		{"スクリーンショット", "sukuriinshotto"},
		{"ダッシュボード", "dasshuboodo"},
		{"ティー", "tii"},
		{"ウィンドウ", "windou"},
		{"コンピューター", "konpyuutaa"},
		{"ブリッジ", "burijji"},
		{"マッチ", "matchi"},
		{"ヴァイオリン", "vaiorin"},
		{"ツァー", "tsaa"},
	} {
		if got := string(AppendRomaji(nil, tc.kana)); got != tc.want {
			t.Errorf("AppendRomaji(%s) = %q, want %q", tc.kana, got, tc.want)
		}
	}
}

// TestAppendRomajiAfterText: what dst already holds is not the kana's own: a long-vowel
// mark first lengthens nothing of it.
func TestAppendRomajiAfterText(t *testing.T) {
	t.Parallel()
	if got := string(AppendRomaji([]byte("ka"), "ーテ")); got != "kate" {
		t.Errorf(`AppendRomaji("ka", ーテ) = %q, want "kate"`, got)
	}
}
