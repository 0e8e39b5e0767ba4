package search

import "testing"

// TestCatalogWordsReachTools: the general words Chinese and Japanese tool
// descriptions share (binding, custom, buckets, private, rollback, canary,
// polling, async, timeout, the market's open) bring an English request to
// the tool described in them, and one's own (自分) a Japanese request to
// the English tool that says so; and a description made of the
// broadest of them (call, tool, support, return, default, parameter, type,
// format, information, service, resource, manage) wins no English request
// that an English tool answers in its own words.
func TestCatalogWordsReachTools(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		mk("cn", "x1", "绑定自定义域名。"),
		mk("cn", "x2", "将存储桶设为私有或公有读。"),
		mk("cn", "x3", "回滚到上一个灰度版本。"),
		mk("cn", "x4", "轮询异步任务直至超时。"),
		mk("cn", "x5", "查询股市的开盘与收盘时间。"),
		mk("cn", "x6", "通用的云 API 调用工具，支持返回信息、默认参数、类型与格式，管理服务资源。"),
		mk("en", "restart_service", "Restart a service on the server."),
		mk("en", "get_parameter", "Return the default value of a configuration parameter."),
		mk("en", "file_info", "Get information about a file: its type, size and format."),
		mk("en", "list_resources", "List the resources of a project."),
		mk("en", "weather", "Get the weather forecast for a city."),
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
		// Guards: the broad words stay the English tools'.
		{"restart the service", "mcp__en__restart_service"},
		{"default value of a parameter", "mcp__en__get_parameter"},
		{"file type and format information", "mcp__en__file_info"},
		{"list project resources", "mcp__en__list_resources"},
		{"weather forecast", "mcp__en__weather"},
	}
	for _, tt := range tests {
		wantFirst(t, ix, docs, tt.query, tt.want)
	}
	checkTerms(t, ix, "自分のタスク", []string{"own", "task"}, nil)
	checkTerms(t, ix, "今天股市开盘了吗", []string{"stock", "market", "open"}, nil)
}
