package catalog

import (
	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
)

// The cache keeps a server's text as the server sent it (package toolaudit reads the
// hidden characters in it); what the host, the model and the user are shown is built from
// it in two places only, and both clean it here: the catalog (newCatalog) and the startup
// file's payloads (startup.Payloads). So the model and the user read the same text, and no
// printer has to clean it again.

// CleanTool returns t with its server text made safe to show: title, description and
// annotation title sanitized, every string of its schemas too (safetext). It returns t
// itself when nothing changes, which is nearly always.
func CleanTool(t *cache.Tool) *cache.Tool {
	title, desc := safetext.Sanitize(t.Title), safetext.Sanitize(t.Description)
	in, out := safetext.SanitizeJSON(t.InputSchema), safetext.SanitizeJSON(t.OutputSchema)
	var annTitle string
	if t.Annotations != nil {
		annTitle = safetext.Sanitize(t.Annotations.Title)
	}
	if title == t.Title && desc == t.Description && sameBytes(in, t.InputSchema) && sameBytes(out, t.OutputSchema) &&
		(t.Annotations == nil || annTitle == t.Annotations.Title) {
		return t
	}
	c := *t
	c.Title, c.Description, c.InputSchema, c.OutputSchema = title, desc, in, out
	if t.Annotations != nil && annTitle != t.Annotations.Title {
		a := *t.Annotations
		a.Title = annTitle
		c.Annotations = &a
	}
	return &c
}

// sameBytes reports whether b is a itself (SanitizeJSON returns its input when clean).
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// NameOffered reports whether a tool of this MCP name may be offered: a name with a
// character Sanitize drops could neither be shown as it is nor called by its cleaned
// form, so such a tool is left out (the live listing says why, see session.decodeTool).
func NameOffered(name string) bool { return safetext.Clean(name) }
