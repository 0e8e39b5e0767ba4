package bridge

import "github.com/zot-mcp/mcp-bridge/catalog"

// Tools lists the cached tools of one server (or all when server is ""), sorted by name:
// entries of the current catalog, read-only.
func (b *Bridge) Tools(server string) []*catalog.Tool {
	cat := b.catalog()
	var out []*catalog.Tool
	for i := range cat.Entries {
		if e := &cat.Entries[i]; server == "" || e.Server == server {
			out = append(out, e)
		}
	}
	return out
}
