package bridge

import (
	"context"
	"net/url"
	"path/filepath"

	"github.com/mark3labs/mcp-go/mcp"
)

// rootsHandler answers roots/list with the project directory (hello_ack.cwd in zot,
// --cwd in the terminal) as the client's one root, so servers that scope themselves by
// the client's roots (server-filesystem without a directory argument) work on the
// project. Without a project directory the list is empty.
type rootsHandler struct{ dir string }

// ListRoots implements client.RootsHandler.
func (h rootsHandler) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	res := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	if h.dir == "" {
		return res, nil
	}
	dir, err := filepath.Abs(h.dir)
	if err != nil {
		dir = h.dir
	}
	res.Roots = append(res.Roots, mcp.Root{URI: fileURI(dir), Name: filepath.Base(dir)})
	return res, nil
}

// fileURI is the file:// URI of an absolute path (percent-encoded, forward slashes).
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if len(p) > 0 && p[0] != '/' { // a Windows drive path
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
