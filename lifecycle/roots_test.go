package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestRootDirs: the project is the first root; a stdio server's directory arguments
// follow (so server-filesystem keeps what the user configured), flags and non-directories
// do not.
func TestRootDirs(t *testing.T) {
	t.Parallel()
	project, other := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(project, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		project string
		args    []string
		want    []string
	}{
		{"project only", project, nil, []string{project}},
		{"argument directories", project, []string{"--flag", ".", "sub", other, "missing", filepath.Join(project, "file.txt")}, []string{project, filepath.Join(project, "sub"), other}},
		{"no project", "", []string{other}, []string{other}},
		{"nothing", "", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// A server without its own cwd runs in the project directory.
			got := RootDirs(tt.project, tt.project, tt.args)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("RootDirs = %q, want %q", got, tt.want)
			}
			res, err := RootsHandler{Dirs: got}.ListRoots(context.Background(), mcp.ListRootsRequest{})
			if err != nil || res.Roots == nil || len(res.Roots) != len(tt.want) {
				t.Fatalf("ListRoots: %v %+v", err, res)
			}
			for i, r := range res.Roots {
				if r.URI != "file://"+tt.want[i] {
					t.Fatalf("root %d: %q", i, r.URI)
				}
			}
		})
	}
}
