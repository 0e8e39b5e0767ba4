package lifecycle

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// RootsHandler answers roots/list with Dirs. The project directory (hello_ack.cwd in zot, --cwd
// in the terminal) is the client's root, so servers that scope themselves by the client's
// roots (server-filesystem without a directory argument) work on the project.
//
// A server that takes directories as arguments as well gets them as further roots: such
// servers (server-filesystem again) replace their argument directories by the client's
// roots as soon as the client offers roots, which would take away what the user
// configured.
type RootsHandler struct{ Dirs []string }

// ListRoots implements client.RootsHandler.
func (h RootsHandler) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	res := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, d := range h.Dirs {
		res.Roots = append(res.Roots, mcp.Root{URI: FileURI(d), Name: filepath.Base(d)})
	}
	return res, nil
}

// RootDirs are the roots offered to a server: the project directory, then every argument
// of a stdio server that names an existing directory (relative ones from the server's
// working directory, workDir), each once.
func RootDirs(projectDir, workDir string, args []string) []string {
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
	add(projectDir)
	for _, a := range args {
		if a == "" || strings.HasPrefix(a, "-") {
			continue
		}
		p := a
		if !filepath.IsAbs(p) {
			if workDir == "" {
				continue
			}
			p = filepath.Join(workDir, p)
		}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			add(p)
		}
	}
	return dirs
}

// FileURI is the file:// URI of an absolute path (percent-encoded, forward slashes).
func FileURI(path string) string {
	p := filepath.ToSlash(path)
	if len(p) > 0 && p[0] != '/' { // a Windows drive path
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
