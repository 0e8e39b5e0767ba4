package search

import (
	"slices"
	"testing"
)

// TestCatalogWordsReachTools: the general words Chinese and Japanese tool
// descriptions share (binding, custom, buckets, private, rollback, canary,
// polling, async, timeout, the market's opening) bring an English request
// to the tool described in them rather than to one that shares only the
// request's main noun (a domain, a stock), and one's own (自分の) a Japanese
// request to the English tool that says so.
func TestCatalogWordsReachTools(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		// Decoys: the same main noun without the words the request asks for
		// (their names say nothing, as names are indexed, and sort before x:
		// a decoy wins a tie).
		mk("cn", "d1", "管理域名。"),
		mk("cn", "d2", "查询股票的实时行情。"),
		mk("cn", "d3", "列出存储桶。"),
		mk("cn", "d4", "列出版本。"),
		mk("cn", "d5", "列出任务。"),
		mk("cn", "x1", "绑定自定义域名。"),
		mk("cn", "x2", "将存储桶设为私有或公有读。"),
		mk("cn", "x3", "回滚到上一个灰度版本。"),
		mk("cn", "x4", "轮询异步任务直至超时。"),
		mk("cn", "x5", "查询股市的开盘与收盘时间。"),
		mk("en", "list_tasks", "List tasks."),
		mk("en", "list_own_tasks", "List your own tasks."),
		mk("en", "list_project_tasks", "List the tasks of a project."),
	}
	ix := New(docs)
	tests := []struct{ query, want string }{
		{"bind a custom domain", "mcp__cn__x1"},
		{"make the bucket private", "mcp__cn__x2"},
		{"roll back the canary release", "mcp__cn__x3"},
		{"poll an async job until it times out", "mcp__cn__x4"},
		{"when does the stock market open", "mcp__cn__x5"},
		{"自分のタスク", "mcp__en__list_own_tasks"},
	}
	for _, tt := range tests {
		wantFirst(t, ix, docs, tt.query, tt.want)
	}
	checkTerms(t, ix, "自分のタスク", []string{"own", "task"}, nil)
	checkTerms(t, ix, "今天股市开盘了吗", []string{"stock", "market"}, nil)
}

// TestCatalogWordsKeepOtherSenses: a word added for the catalogs'
// descriptions neither takes the characters of a longer word it sits in
// (本地 in 日本地图, 自分 in 来自分支, 个人 in 两个人, 大小 in 区分大小写, 盘中
// in 磁盘中) nor brings a sense of its English word that another tool
// means (a browser's typing for 类型, joining a meeting for 拼接, the memory
// server for 内存, exchange rates for 限流, closing a browser or an issue for
// 收盘价): each request reaches the tool it asks for, not the one its
// English word's other sense names.
func TestCatalogWordsKeepOtherSenses(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		mk("maps", "static_map", "Get a static map image of a place."),
		mk("fs", "read_local_file", "Read a local file from disk."),
		mk("git", "list_branch_commits", "List the commits merged from a branch."),
		mk("me", "list_own_items", "List your own items."),
		mk("cook", "recommend_dishes", "推荐吃什么菜：按人数给出菜谱。"),
		mk("me", "get_personal_info", "Get the current user's personal info."),
		mk("fs", "file_info", "Get information about a file: its type, size and format."),
		mk("browser", "browser_type", "Type text into an input field of the page."),
		mk("video", "concat_videos", "Concatenate video clips into one video."),
		mk("meet", "join_meeting", "Join a meeting by its link."),
		mk("sys", "system_stats", "Show RAM and CPU usage of the machine."),
		mk("memory", "create_entities", "Create entities in the knowledge graph memory."),
		mk("api", "set_throttle", "Set the throttling rules of an API gateway."),
		mk("fx", "exchange_rate", "Get the exchange rate between two currencies."),
		mk("text", "search_text", "Search text, matching uppercase and lowercase letters exactly."),
		mk("fs", "file_size", "Get the size of a file."),
		mk("disk", "disk_usage", "Show how much of a disk is used."),
		mk("stock", "intraday_quote", "Intraday stock price chart."),
		mk("cn", "stock_history", "查询股票的历史行情与价格。"),
		mk("browser", "browser_close", "Close the browser."),
		mk("gh", "close_issue", "Close an issue."),
	}
	ix := New(docs)
	tests := []struct {
		query, want string   // want first, unless ""
		not         []string // none of these in the top 5: they share only the wrong sense
	}{
		{"日本地图", "mcp__maps__static_map", nil},
		{"两个人吃什么菜", "mcp__cook__recommend_dishes", []string{"mcp__me__get_personal_info"}},
		{"查询文件类型", "", []string{"mcp__browser__browser_type"}},
		{"拼接两个视频", "mcp__video__concat_videos", []string{"mcp__meet__join_meeting"}},
		{"查看内存", "mcp__sys__system_stats", []string{"mcp__memory__create_entities"}},
		{"设置接口限流规则", "mcp__api__set_throttle", []string{"mcp__fx__exchange_rate"}},
		{"区分大小写搜索文本", "mcp__text__search_text", []string{"mcp__fs__file_size"}},
		{"今天股票收盘价", "mcp__cn__stock_history", []string{"mcp__browser__browser_close", "mcp__gh__close_issue"}},
	}
	for _, tt := range tests {
		if tt.want != "" {
			wantFirst(t, ix, docs, tt.query, tt.want)
		}
		got := ids(docs, ix.Search(tt.query, 5))
		for _, n := range tt.not {
			if slices.Contains(got, n) {
				t.Errorf("Search(%q) = %v, want no %s", tt.query, got, n)
			}
		}
	}
	checkTerms(t, ix, "合并来自分支的提交", []string{"branch", "merge"}, []string{"own"})
	checkTerms(t, ix, "各自分别处理", nil, []string{"own"})
	checkTerms(t, ix, "基本地址", []string{"address"}, nil)
	checkTerms(t, ix, "磁盘中的文件", []string{"disk", "file"}, []string{"intraday"})
	checkTerms(t, ix, "区分大小写", []string{"uppercase", "lowercase"}, []string{"size"})
	checkTerms(t, ix, "离我最近的加油站", []string{"nearest"}, nil)
	checkTerms(t, ix, "今天股票收盘价", nil, []string{"close"})
}
