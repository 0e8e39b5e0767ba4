package bridge

import "encoding/json"

// Tools lists the cached tools of one server (or all when server is ""), sorted by name.
func (b *Bridge) Tools(server string) []ToolInfo {
	cat := b.catalog()
	var out []ToolInfo
	for i := range cat.Entries {
		e := &cat.Entries[i]
		if server == "" || e.Server == server {
			t := e.CacheTool()
			out = append(out, ToolInfo{Name: e.Name, Server: e.Server, Tool: e.Tool.Name, Description: t.Description, InputSchema: t.InputSchema})
		}
	}
	return out
}

// ToolInfo describes one catalog tool for listings.
type ToolInfo struct {
	Name, Server, Tool, Description string
	// InputSchema is the input schema as the bridge keeps it and shows it to the model.
	InputSchema json.RawMessage
}
