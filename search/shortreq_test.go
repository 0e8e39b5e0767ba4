package search

import (
	"slices"
	"testing"
)

// TestAcceptSpeaksOfToolsOnlyInToolTalk: "accept" is a word about tools'
// inputs only in a request that speaks of tools; elsewhere it is the action
// asked for.
func TestAcceptSpeaksOfToolsOnlyInToolTalk(t *testing.T) {
	t.Parallel()
	ix := New(englishTools)
	tests := []struct {
		query string
		want  bool // the analysis searches for "accept"
	}{
		{"accept a pending contact request", true},
		{"accept the invitation", true},
		{"which tool accepts a filePattern", false},
		{"a tool that accepts a path parameter", false},
		{"which parameter does it accept", false},
	}
	for _, tt := range tests {
		if got := slices.Contains(ix.analyse(tt.query), "accept"); got != tt.want {
			t.Errorf("analysis of %q = %v: has accept %v, want %v", tt.query, ix.analyse(tt.query), got, tt.want)
		}
	}
}

// TestEverydayWordsReachTools: everyday words and phrases of short
// requests, in English and in the bilingual lexicon's languages, reach the
// tool whose own words say the same, over tools that share one of the
// request's words in another sense.
func TestEverydayWordsReachTools(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		{ID: "hk_quote", Server: "stocks", Tool: "get_quotes", Description: "获取港股行情。代码 5 位数字。"},
		{ID: "pie", Server: "charts", Tool: "generate_pie_chart", Description: "Generate a pie chart to show the share of each part of a whole, as proportions."},
		{ID: "nfs_share", Server: "cloud", Tool: "create_file_share", Description: "Create a network file share."},
		{ID: "recipe", Server: "cook", Tool: "get_dish", Description: "根据名称查询菜谱的完整详情，包括食材、步骤等"},
		{ID: "thinking", Server: "think", Tool: "sequential_thinking", Description: "Solve a problem through sequential thinking."},
		{ID: "top_items", Server: "tracker", Tool: "get_top_items", Description: "Get the top items of the project."},
		{ID: "events", Server: "hooks", Tool: "list_webhook_events", Description: "List webhook events, most recent first."},
		{ID: "add_card", Server: "board", Tool: "add_card_to_list", Description: "Add a new card to a list on a board."},
		{ID: "create_board", Server: "board", Tool: "create_board", Description: "Create a new board."},
		{ID: "map", Server: "geo", Tool: "show_map", Description: "Show a map of a place."},
		{ID: "ja_accept", Server: "chat", Tool: "x1", Description: "自分へのコンタクト承認依頼を承認します。"},
	}
	// The tools of other kinds give the words their usual rarity.
	for _, d := range englishTools {
		if d.ID != "stock" { // an answer to the share price rows too
			docs = append(docs, d)
		}
	}
	ix := New(docs)
	tests := []struct{ lang, query, want string }{
		{"en", "share price of a company in Hong Kong", "hk_quote"},
		{"en", "stock price in hong kong", "hk_quote"},
		{"en", "ingredients for a dish", "recipe"},
		{"en", "ingredients and steps for braised beef", "recipe"},
		{"en", "most common problems in the project", "top_items"},
		{"de", "neue Karte auf dem Board anlegen", "add_card"},
		{"de", "Karte von Berlin zeigen", "map"},
		{"ja", "accept a contact request", "ja_accept"},
		{"ja", "approve the contact request", "ja_accept"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 3)
		if len(hits) == 0 || docs[hits[0].Doc].ID != tt.want {
			t.Errorf("[%s] Search(%q) = %v, want %s first", tt.lang, tt.query, ids(docs, hits), tt.want)
		}
	}
}

// TestInflectedForeignWordReachesTool: a German or Spanish word in a form
// the bilingual lexicon does not list (a plural, an infinitive, an
// imperative) reaches the tool its listed form does.
func TestInflectedForeignWordReachesTool(t *testing.T) {
	t.Parallel()
	ix := New(englishTools)
	tests := []struct{ lang, query, listed, want string }{
		{"de", "Wettervorhersagen für Berlin", "wettervorhersage", "weather"},
		{"de", "die Datei lösch", "löschen", "delete_file"},
		{"de", "Verzeichnissen auflisten", "verzeichnisse", "list_dir"},
		{"es", "lee el archivo", "leer", "read_file"},
		{"es", "borra el archivo", "borrar", "delete_file"},
		{"es", "traduzca este texto", "traducir", "translate"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 3)
		if len(hits) == 0 || englishTools[hits[0].Doc].ID != tt.want {
			t.Errorf("[%s] Search(%q) = %v, want %s first (as %q reaches it)", tt.lang, tt.query, ids(englishTools, hits), tt.want, tt.listed)
		}
	}
}

// TestWordInsidePhraseGivesNothingOfItsOwn: a word inside a longer phrase
// of the lexicon stands for what the phrase does, not for its own
// everyday senses: "share" in "share price" is no pie chart's share, and
// "directory" in "company directory" is no folder; alone, each keeps them.
func TestWordInsidePhraseGivesNothingOfItsOwn(t *testing.T) {
	t.Parallel()
	ix := New(englishTools)
	tests := []struct {
		query    string
		has, not []string
	}{
		{"share price of the company", []string{"stock", "quote"}, []string{"pie", "proportion"}},
		{"each region's share of sales", []string{"pie"}, nil},
		{"find a person in the company directory", []string{"contact", "member"}, nil},
		{"list the files in a directory", []string{"directory"}, []string{"contact"}},
		{"search research articles", []string{"paper"}, []string{"scrape", "readable"}},
	}
	for _, tt := range tests {
		terms := ix.analyse(tt.query)
		for _, w := range tt.has {
			if !slices.Contains(terms, w) {
				t.Errorf("analysis of %q = %v: lacks %q", tt.query, terms, w)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(terms, w) {
				t.Errorf("analysis of %q = %v: has %q", tt.query, terms, w)
			}
		}
	}
}

// TestKnownCJKWordWeighsAsOneWord: the character pairs of a CJK word the
// bilingual lexicon knows weigh as about one word together, so a tool
// described in the request's script does not win on the length of one
// word over a tool that says the request in English.
func TestKnownCJKWordWeighsAsOneWord(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		{ID: "ja_post", Server: "chat", Tool: "post_room_message", Description: "ルームのメッセージ一覧。"},
		{ID: "broadcast", Server: "bot", Tool: "broadcast_message", Description: "Broadcast a message to all followers."},
	}
	docs = append(docs, englishTools...)
	ix := New(docs)
	tests := []struct{ query, want string }{
		{"メッセージを一斉送信", "broadcast"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 3)
		if len(hits) == 0 || docs[hits[0].Doc].ID != tt.want {
			t.Errorf("Search(%q) = %v, want %s first", tt.query, ids(docs, hits), tt.want)
		}
	}
}
