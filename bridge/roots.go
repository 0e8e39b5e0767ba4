package bridge

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// rootsHandler answers roots/list. The project directory (hello_ack.cwd in zot, --cwd
// in the terminal) is the client's root, so servers that scope themselves by the client's
// roots (server-filesystem without a directory argument) work on the project.
//
// A server that takes directories as arguments as well gets them as further roots: such
// servers (server-filesystem again) replace their argument directories by the client's
// roots as soon as the client offers roots, which would take away what the user
// configured.
type rootsHandler struct{ dirs []string }

// ListRoots implements client.RootsHandler.
func (h rootsHandler) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	res := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, d := range h.dirs {
		res.Roots = append(res.Roots, mcp.Root{URI: fileURI(d), Name: filepath.Base(d)})
	}
	return res, nil
}

// rootDirs are the roots offered to this server: the project directory, then every
// argument of a stdio server that names an existing directory (relative ones from the
// server's working directory), each once.
func (s *Server) rootDirs() []string {
	var dirs []string
	seen := map[string]bool{}
	add := func(d string) {
		if d == "" {
			return
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	add(s.d.projectDir)
	for _, a := range s.cfg.Args {
		if a == "" || strings.HasPrefix(a, "-") {
			continue
		}
		p := a
		if !filepath.IsAbs(p) {
			if s.workDir() == "" {
				continue
			}
			p = filepath.Join(s.workDir(), p)
		}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			add(p)
		}
	}
	return dirs
}

// fileURI is the file:// URI of an absolute path (percent-encoded, forward slashes).
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if len(p) > 0 && p[0] != '/' { // a Windows drive path
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
