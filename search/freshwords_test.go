package search

import "testing"

// TestFreshWordsReachTools covers the few bilingual words the fresh requests
// of this round found plainly missing (a product in Hangul, training, fine
// dust, what is popular, 退避 for putting changes aside); 退避 keeps its
// sense of draining a node, and the request's other words choose.
func TestFreshWordsReachTools(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		mk("git", "git_stash", "Manage stashes: save current changes, restore them later."),
		mk("kube", "node_management", "Cordon, drain or uncordon a cluster node."),
		mk("reddit", "browse_subreddit", "Fetch posts from a subreddit sorted by hot, new or top."),
		mk("gym", "create_workout", "Writes a completed workout with its exercises."),
		mk("meteo", "air_quality", "Get air quality forecast data: PM2.5, PM10, ozone."),
		mk("notes", "add_row", "Add a row to the ledger."),
		mk("chat", "post", "Post a message to a channel."),
		mk("meteo", "weather_forecast", "Weather forecast for a place."),
	}
	ix := New(docs)
	tests := []struct{ query, want string }{
		{"作業中の変更を退避する", "mcp__git__git_stash"},
		{"ノードを退避する", "mcp__kube__node_management"},
		{"레딧 인기 글 보기", "mcp__reddit__browse_subreddit"},
		{"오늘 운동 기록 추가", "mcp__gym__create_workout"},
		{"미세먼지 농도 확인", "mcp__meteo__air_quality"},
	}
	for _, tt := range tests {
		wantFirst(t, ix, docs, tt.query, tt.want)
	}
}
