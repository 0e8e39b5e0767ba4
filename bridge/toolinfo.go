package bridge

// Tools lists the cached tools of one server (or all when server is ""), sorted by name.
func (b *Bridge) Tools(server string) []ToolInfo {
	cat := b.catalog()
	var out []ToolInfo
	for i := range cat.Entries {
		e := &cat.Entries[i]
		if server == "" || e.Server == server {
			out = append(out, ToolInfo{Name: e.Name, Server: e.Server, Tool: e.Tool.Name, Description: e.CacheTool().Description})
		}
	}
	return out
}

// ToolInfo describes one catalog tool for listings.
type ToolInfo struct {
	Name, Server, Tool, Description string
}
