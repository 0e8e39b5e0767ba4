package cache

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestPrivateListings: a private listing is stored under its project and seen only by a
// session in it (View), beside the other projects' and beside the shared entry of its
// name; a shared entry put by a session replaces that session's private listing (a
// server that stopped marking its listing private), a dropped name loses both, the file
// reads back the same, and a private listing put for another project than the session's
// is refused.
func TestPrivateListings(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	now := func() time.Time { return time.Unix(1000, 0) }
	entry := func(project, tool string) *Server {
		return &Server{Fingerprint: "f", Project: project, Tools: []Tool{{Name: tool, InputSchema: []byte(`{"type":"object"}`)}}}
	}
	tools := func(e *Server) string {
		if e == nil {
			return "none"
		}
		return e.Tools[0].Name
	}
	steps := []struct {
		name    string
		project string
		put     map[string]*Server
		drop    []string
		changed []string
		views   map[string]string // project → the tool its view of "s" has
	}{
		{name: "shared", put: map[string]*Server{"s": entry("", "shared")}, changed: []string{"s"},
			views: map[string]string{"": "shared", "/a": "shared", "/b": "shared"}},
		{name: "a's private", project: "/a", put: map[string]*Server{"s": entry("/a", "a")}, changed: []string{"s"},
			views: map[string]string{"": "shared", "/a": "a", "/b": "shared"}},
		{name: "b's private", project: "/b", put: map[string]*Server{"s": entry("/b", "b")}, changed: []string{"s"},
			views: map[string]string{"": "shared", "/a": "a", "/b": "b"}},
		{name: "a's again", project: "/a", put: map[string]*Server{"s": entry("/a", "a")},
			views: map[string]string{"": "shared", "/a": "a", "/b": "b"}},
		{name: "a lists it shared", project: "/a", put: map[string]*Server{"s": entry("", "shared")}, changed: []string{"s"},
			views: map[string]string{"": "shared", "/a": "shared", "/b": "b"}},
		{name: "b drops it", project: "/b", drop: []string{"s"}, changed: []string{"s"},
			views: map[string]string{"": "none", "/a": "none", "/b": "none"}},
	}
	for _, st := range steps {
		changed, _, err := UpdatePrev(t.Context(), path, st.project, st.put, st.drop, now)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if !slices.Equal(changed, st.changed) {
			t.Errorf("%s: changed %v, want %v", st.name, changed, st.changed)
		}
		f, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		for project, want := range st.views {
			if got := tools(f.View(project)["s"]); got != want {
				t.Errorf("%s: project %q sees %s, want %s", st.name, project, got, want)
			}
		}
		if e := f.View("/a")["s"]; e != nil && e.Tools[0].Name == "a" && e.Project != "/a" {
			t.Errorf("%s: a private listing reads back with project %q", st.name, e.Project)
		}
	}
	if _, _, err := UpdatePrev(t.Context(), path, "/a", map[string]*Server{"s": entry("/b", "b")}, nil, now); err == nil {
		t.Error("a session stored a private listing for another project")
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", st.Mode(), err)
	}
}

// TestSetProtocolOfAPrivateListing: the revision a session learned goes to the entry its
// project sees, its private listing, not the shared entry of the same name.
func TestSetProtocolOfAPrivateListing(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	put := map[string]*Server{"s": {Fingerprint: "f", Project: "/a"}}
	if _, _, err := UpdatePrev(t.Context(), path, "/a", put, nil, time.Now); err != nil {
		t.Fatal(err)
	}
	if _, err := Update(t.Context(), path, map[string]*Server{"s": {Fingerprint: "f"}}, nil, time.Now); err != nil {
		t.Fatal(err)
	}
	if err := SetProtocol(t.Context(), path, "/a", "s", "2026-07-28", "k"); err != nil {
		t.Fatal(err)
	}
	f, _ := Read(path)
	if got := f.View("/a")["s"].Protocol; got != "2026-07-28" {
		t.Errorf("the private listing's revision is %q", got)
	}
	if got := f.Servers["s"].Protocol; got != "" {
		t.Errorf("the shared entry's revision became %q", got)
	}
}

// TestFramesPrivateListings: the startup file keeps each project's private listing of a
// server after its shared one, and a start picks its project's (FrameServer.In); a private
// listing without a server line before it is damaged.
func TestFramesPrivateListings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.startup")
	stamp := Stamp{Size: 1, ModTime: 2}
	tool := func(n string) []FrameTool { return []FrameTool{{Name: n, Payload: []byte(`"p":1`)}} }
	in := map[string]*FrameServer{
		"s":    {Fingerprint: "f", Tools: tool("shared"), Projects: map[string]*FrameServer{"/a": {Fingerprint: "f", Tools: tool("a")}, "/b\tc": {Fingerprint: "g", Instructions: "b's", Tools: tool("b")}}},
		"only": {Projects: map[string]*FrameServer{"/a": {Fingerprint: "f", Tools: tool("a")}}},
	}
	if err := WriteStartup(path, stamp, nil, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadFrames(path, stamp)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ server, project, want string }{
		{"s", "", "shared"}, {"s", "/a", "a"}, {"s", "/b\tc", "b"}, {"s", "/other", "shared"},
		{"only", "/a", "a"}, {"only", "/other", ""}, {"missing", "/a", ""},
	} {
		got := ""
		if fs := out[c.server].In(c.project); fs != nil && len(fs.Tools) > 0 {
			got = fs.Tools[0].Name
		}
		if got != c.want {
			t.Errorf("%s in %q: %q, want %q", c.server, c.project, got, c.want)
		}
	}
	if out["s"].Projects["/b\tc"].Instructions != "b's" {
		t.Error("a private listing's instructions are lost")
	}
	for name, body := range map[string]string{
		"private listing first": "R\t\"/a\"\tf\t0\n",
		"twice":                 "S\t\"s\"\tf\t0\nR\t\"/a\"\tf\t0\nR\t\"/a\"\tf\t0\n",
		"no project":            "S\t\"s\"\tf\t0\nR\t\"\"\tf\t0\n",
	} {
		if err := os.WriteFile(path, []byte(framesFile(stamp, body)), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFrames(path, stamp); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
