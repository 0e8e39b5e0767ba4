package search

import (
	"slices"
	"testing"
)

// cjkGrammarTools are tools whose words a request in Chinese, Japanese or
// Korean writes with kana, okurigana or measure words, each beside a tool
// that shares the request's other words, under names that say little: the
// grammar of the request must weigh little and its words their full weight.
var cjkGrammarTools = []Doc{
	{ID: "cancel_order", Server: "shop", Tool: "tool_a", Description: "注文を取り消します。"},
	{ID: "get_order", Server: "shop", Tool: "tool_b", Description: "注文の詳細と注文の状態を取得します。"},
	{ID: "filter_items", Server: "shop", Tool: "tool_c", Description: "商品の一覧を条件で絞り込みます。"},
	{ID: "list_items", Server: "shop", Tool: "tool_d", Description: "商品の一覧を取得します。"},
	{ID: "inquiry", Server: "crm", Tool: "tool_e", Description: "顧客からの問い合わせを登録します。"},
	{ID: "customer", Server: "crm", Tool: "tool_f", Description: "顧客の情報と顧客の連絡先を登録します。"},
	{ID: "assign", Server: "tasks", Tool: "tool_g", Description: "タスクを担当者に割り当てます。"},
	{ID: "task_detail", Server: "tasks", Tool: "tool_h", Description: "タスクの詳細を表示します。"},
	{ID: "to_kana", Server: "text", Tool: "tool_i", Description: "漢字をひらがなに変換します。"},
	{ID: "convert", Server: "text", Tool: "tool_j", Description: "テキストを別の形式に変換します。"},
	{ID: "delete_history", Server: "browser", Tool: "tool_k", Description: "閲覧履歴を消します。"},
	{ID: "show_history", Server: "browser", Tool: "tool_l", Description: "閲覧履歴を一覧にします。履歴を検索します。"},
	{ID: "elastic", Server: "search", Tool: "tool_m", Description: "エラスティックサーチで全文検索します。"},
	{ID: "errors", Server: "monitor", Tool: "tool_n", Description: "最近のエラーを一覧表示します。"},
	{ID: "show", Server: "events", Tool: "tool_o", Description: "ショーのチケットを予約します。"},
	{ID: "shop", Server: "events", Tool: "tool_p", Description: "近くのショップを予約します。"},
	{ID: "place_order", Server: "pay", Tool: "tool_q", Description: "统一下单，创建支付订单。"},
	{ID: "wait", Server: "pay", Tool: "tool_r", Description: "统一查询一下单个订单。"},
	{ID: "segment", Server: "nlp", Tool: "tool_s", Description: "中文分词，把文本切分成词。"},
	{ID: "python_doc", Server: "nlp", Tool: "tool_t", Description: "在Python中运行代码，Python中文档。"},
}

// TestCJKContentWordsKeepWeight: the review's probes of the grammar
// weights, each a request whose word the grammar rules once weighed as
// grammar, so that the tool beside the right one came first; not, when
// set, is a tool that must not be among the hits at all.
func TestCJKContentWordsKeepWeight(t *testing.T) {
	t.Parallel()
	ix := New(cjkGrammarTools)
	tests := []struct{ query, want, not string }{
		// Okurigana inside a compound and after a verb's kanji.
		{"注文の取り消し", "cancel_order", ""},
		{"商品の一覧を絞り込み", "filter_items", ""},
		{"顧客の問い合わせを登録", "inquiry", ""},
		{"タスクの割り当て", "assign", ""},
		{"履歴を消す", "delete_history", ""},
		// A word written in hiragana.
		{"テキストをひらがなに変換", "to_kana", ""},
		// A final long vowel after two sounds stays, so エラー is not the
		// first pair of エラスティック nor ショー that of ショップ.
		{"エラスティックサーチで検索", "elastic", ""},
		{"show recent errors", "errors", "elastic"},
		{"ショーを予約", "show", ""},
		// The pair after a grammar word may be a word (下单); a
		// postposition after a Latin word begins one (中文).
		{"统一下单", "place_order", ""},
		{"Python中文分词", "segment", ""},
	}
	for _, tt := range tests {
		wantFirstWithout(t, ix, cjkGrammarTools, tt.query, tt.want, tt.not)
	}
}

// cjkSenseTools are tools described in English for the senses the
// bilingual lexicon once gave its Chinese, Japanese and Korean words
// wrongly, each beside the tool the word means.
var cjkSenseTools = []Doc{
	{ID: "docker_build", Server: "docker", Tool: "build_image", Description: "Build a Docker image from a Dockerfile."},
	{ID: "recipes", Server: "kitchen", Tool: "find_recipes", Description: "Find cooking recipes by ingredient."},
	{ID: "token_expiry", Server: "auth", Tool: "token_expiry", Description: "Show the expiration date of an API token."},
	{ID: "feature_flag", Server: "flags", Tool: "toggle_flag", Description: "Enable or disable a feature flag, or check whether a token is valid."},
	{ID: "pause_job", Server: "ci", Tool: "pause_job", Description: "Pause a running job."},
	{ID: "temp_file", Server: "fs", Tool: "temp_file", Description: "Create a temporary file."},
	{ID: "sort_time", Server: "db", Tool: "sort_records", Description: "Sort the records by time."},
	{ID: "duration", Server: "db", Tool: "task_duration", Description: "Show the duration of a task."},
	{ID: "git_branch", Server: "git", Tool: "list_branches", Description: "List the branches of a repository, main first."},
	{ID: "capital_flow", Server: "market", Tool: "capital_flow", Description: "Net capital inflow of institutional investors into a stock."},
	{ID: "mutual_funds", Server: "market", Tool: "fund_nav", Description: "Net asset value of mutual funds."},
	{ID: "trello_boards", Server: "trello", Tool: "list_boards", Description: "List my Trello boards."},
	{ID: "us_stocks", Server: "market", Tool: "us_history", Description: "Historical daily prices of stocks listed on the Nasdaq."},
	{ID: "hk_stocks", Server: "market", Tool: "hk_history", Description: "Historical daily prices of stocks listed in Hong Kong."},
	{ID: "walking", Server: "maps", Tool: "walking_directions", Description: "Walking directions between two places."},
	{ID: "collections", Server: "db", Tool: "list_collections", Description: "List the collections of a database."},
	{ID: "auction", Server: "market", Tool: "opening_auction", Description: "Call auction prices before the market opens."},
}

// TestCJKLexiconSenses: a request finds the tool its Chinese, Japanese or
// Korean word means, not the one a wrong sense of the word names; not,
// when set, is a tool that must not be among the hits.
func TestCJKLexiconSenses(t *testing.T) {
	t.Parallel()
	ix := New(cjkSenseTools)
	tests := []struct{ query, want, not string }{
		{"Dockerイメージの作り方", "docker_build", "recipes"},
		{"トークンの有効期限", "token_expiry", ""},
		{"ジョブを一時停止", "pause_job", ""},
		{"用时间排序", "sort_time", "duration"},
		{"主力资金净流入", "capital_flow", "git_branch"},
		{"资金流入", "capital_flow", "mutual_funds"},
		{"美股历史行情", "us_stocks", ""},
		{"米国株の過去の値動き", "us_stocks", ""},
		{"集合竞价", "auction", "collections"},
		// A verb the lexicon knows in its dictionary form, in other forms.
		{"駅まで歩いて行く", "walking", ""},
		{"駅から歩きたい", "walking", ""},
	}
	for _, tt := range tests {
		wantFirstWithout(t, ix, cjkSenseTools, tt.query, tt.want, tt.not)
	}
}

// wantFirstWithout is wantFirst, and, when not is set, fails the test if the doc
// with ID not is among query's hits.
func wantFirstWithout(t *testing.T, ix *Index, docs []Doc, query, want, not string) {
	t.Helper()
	wantFirst(t, ix, docs, query, want)
	if got := ids(docs, ix.Search(query, 5)); not != "" && slices.Contains(got, not) {
		t.Errorf("Search(%q) = %v, want no %s", query, got, not)
	}
}
