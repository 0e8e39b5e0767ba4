package lifecycle

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// TestStartInMissingDirectory: a stdio server whose working directory is missing (the
// project directory the host named, or the server's own "cwd") fails to start saying
// which directory is missing and what to do, not that its command was not found. Before,
// the failed chdir read as a missing command for every server.
func TestStartInMissingDirectory(t *testing.T) {
	exe, err := os.Executable() // a command that exists; nothing runs, the chdir fails first
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "gone")
	tests := []struct {
		name    string
		project string
		cwd     string
		want    []string
	}{
		{"project directory missing", missing, "", []string{`the project directory "` + missing + `"`, "does not exist", "start zot again", "/mcp start s"}},
		{"project directory is a file", file, "", []string{`the project directory "` + file + `"`, "is not a directory"}},
		{"the server's cwd missing", t.TempDir(), missing, []string{`its working directory "` + missing + `" ("cwd" in `, "does not exist", `fix "cwd"`, "/mcp start s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			entry := map[string]any{"command": exe}
			if tc.cwd != "" {
				entry["cwd"] = tc.cwd
			}
			raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"s": entry}})
			if err := os.WriteFile(filepath.Join(home, "mcp.json"), raw, 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := config.Load(config.Options{ZotHome: home, ProjectDir: tc.project, LookupEnv: func(string) (string, bool) { return "", false }})
			if len(cfg.Servers) != 1 {
				t.Fatalf("servers %+v (problems %v)", cfg.Servers, cfg.Problems)
			}
			s := New(&cfg.Servers[0], wired(&Deps{Clock: clock.NewFake(), Log: zerolog.New(testutil.Log(t)), ProjectDir: tc.project, Surface: zotSurface{}}, nil))
			err := s.Start(ctxGuard(t))
			var e *Error
			var dir *session.DirError
			if !errors.As(err, &e) || e.Kind != session.KindStart || !errors.As(err, &dir) {
				t.Fatalf("start: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(e.Msg, w) {
					t.Fatalf("start error lacks %q: %s", w, e.Msg)
				}
			}
			if strings.Contains(e.Msg, "not found") {
				t.Fatalf("a missing directory worded as a missing command: %s", e.Msg)
			}
		})
	}
}
