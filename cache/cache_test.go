package cache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

func boolp(b bool) *bool { return &b }

// sampleEntry returns a small entry whose content depends on seed.
func sampleEntry(seed string) *Server {
	return &Server{
		Fingerprint: "fp-" + seed,
		Transport:   "stdio",
		ServerName:  "srv-" + seed,
		UpdatedAt:   time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC),
		Tools: []Tool{
			{
				Name:        "b_tool",
				Description: "second " + seed,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}`),
			},
			{
				Name:         "a_tool",
				Title:        "First",
				Description:  "first " + seed,
				InputSchema:  json.RawMessage(`{"type":"object","properties":{}}`),
				OutputSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`),
				Annotations:  &Annotations{Title: "First", ReadOnlyHint: boolp(true), OpenWorldHint: boolp(false)},
			},
		},
	}
}

// sameStored reports whether got is what Update stores for want.
func sameStored(got, want *Server) bool {
	w := prepareEntry(want, time.Time{})
	return sameEntry(got, w) && got.UpdatedAt.Equal(w.UpdatedAt)
}

func mustUpdate(t *testing.T, path string, put map[string]*Server, drop []string) bool {
	t.Helper()
	changed, err := Update(t.Context(), path, put, drop, time.Now)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	return len(changed) > 0
}

func mustRead(t *testing.T, path string) *File {
	t.Helper()
	f, err := Read(path)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return f
}

func TestDefaultPath(t *testing.T) {
	if got, want := DefaultPath(filepath.Join("home", ".zot")), filepath.Join("home", ".zot", "mcp-tools-cache.json"); got != want {
		t.Fatalf("DefaultPath = %q, want %q", got, want)
	}
}

func TestRoundTrip(t *testing.T) {
	long := strings.Repeat("é", MaxInstructionsBytes) // 2 bytes each
	tricky := &Server{
		Fingerprint:  "abc",
		Transport:    "streamable-http",
		ServerName:   "tricky",
		Instructions: long,
		Tools: []Tool{{
			Name:        `q"uote\back`,
			Title:       "<b>&amp;</b>",
			Description: "line1\nline2\ttab\r\x01\x1f \u2028 😀 bad:\xff end",
			InputSchema: json.RawMessage(" {\n  \"type\": \"object\",\n  \"properties\": {\"s\": {\"type\": \"string\", \"default\": \"a b\\n\"}}\n}"),
		}},
	}
	tests := []struct {
		name string
		put  map[string]*Server
	}{
		{"sample", map[string]*Server{"one": sampleEntry("1"), "two": sampleEntry("2")}},
		{"tricky strings", map[string]*Server{"tricky": tricky}},
		{"no tools", map[string]*Server{"empty": {Fingerprint: "x"}}},
		{"catalog", func() map[string]*Server {
			names, entries := loadCatalog(t)
			m := map[string]*Server{}
			for i, e := range entries {
				m[names[i]] = e
			}
			return m
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if !mustUpdate(t, path, tt.put, nil) {
				t.Error("first Update reported no change")
			}
			got := mustRead(t, path)
			if got.Version != Version || len(got.Servers) != len(tt.put) {
				t.Fatalf("read version %d with %d servers, want %d with %d", got.Version, len(got.Servers), Version, len(tt.put))
			}
			for name, want := range tt.put {
				e := got.Servers[name]
				if e == nil {
					t.Fatalf("server %q missing", name)
				}
				if !want.UpdatedAt.IsZero() && !sameStored(e, want) {
					t.Errorf("server %q: got %+v, want %+v", name, e, prepareEntry(want, time.Time{}))
				}
				for i := 1; i < len(e.Tools); i++ {
					if e.Tools[i-1].Name > e.Tools[i].Name {
						t.Errorf("server %q: tools not sorted: %q before %q", name, e.Tools[i-1].Name, e.Tools[i].Name)
					}
				}
				for _, tool := range e.Tools {
					if !json.Valid(tool.InputSchema) || strings.ContainsAny(string(tool.InputSchema), "\n\r") {
						t.Errorf("server %q tool %q: schema not compact JSON: %s", name, tool.Name, tool.InputSchema)
					}
				}
			}
			// The file Update wrote decodes to the same thing with encoding/json.
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var std File
			if err := json.Unmarshal(data, &std); err != nil {
				t.Fatalf("encoding/json rejects the file: %v", err)
			}
			for name, e := range got.Servers {
				if s := std.Servers[name]; !sameEntry(e, s) || !e.UpdatedAt.Equal(s.UpdatedAt) {
					t.Errorf("server %q: Read and encoding/json disagree", name)
				}
			}
			// Writing what was read gives the same bytes.
			again, err := encodeFile(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(data) {
				t.Error("re-encoding the file read back changed it")
			}
		})
	}

	t.Run("tricky details", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), FileName)
		mustUpdate(t, path, map[string]*Server{"tricky": tricky}, nil)
		e := mustRead(t, path).Servers["tricky"]
		if len(e.Instructions) > MaxInstructionsBytes || !strings.HasPrefix(long, e.Instructions) || len(e.Instructions) < MaxInstructionsBytes-1 {
			t.Errorf("instructions not capped at a rune boundary: %d bytes", len(e.Instructions))
		}
		tool := e.Tools[0]
		if tool.Name != tricky.Tools[0].Name || tool.Title != tricky.Tools[0].Title {
			t.Errorf("name/title changed: %q %q", tool.Name, tool.Title)
		}
		if want := strings.ToValidUTF8(tricky.Tools[0].Description, "\uFFFD"); tool.Description != want {
			t.Errorf("description = %q, want %q", tool.Description, want)
		}
		if want := `{"type":"object","properties":{"s":{"type":"string","default":"a b\n"}}}`; string(tool.InputSchema) != want {
			t.Errorf("schema = %s, want %s", tool.InputSchema, want)
		}
		if e.UpdatedAt.IsZero() {
			t.Error("zero UpdatedAt not set by Update")
		}
	})
}

func TestFileFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	mustUpdate(t, path, map[string]*Server{"one": sampleEntry("1")}, nil)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !json.Valid(data) || !strings.HasSuffix(s, "}\n") {
		t.Fatalf("not JSON with a trailing newline:\n%s", s)
	}
	for _, want := range []string{
		"{\n  \"version\": 1,\n  \"servers\": {\n    \"one\": {\n      \"fingerprint\": \"fp-1\",",
		"\n        {\n          \"name\": \"a_tool\",",
		"\n          \"inputSchema\": {\"type\":\"object\",\"properties\":{}},",
		`"annotations": {"title":"First","readOnlyHint":true,"openWorldHint":false}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("file lacks %q:\n%s", want, s)
		}
	}
}

func TestReadMissing(t *testing.T) {
	f, err := Read(filepath.Join(t.TempDir(), "nope", FileName))
	if err != nil {
		t.Fatalf("Read of a missing file: %v", err)
	}
	if f == nil || f.Version != Version || f.Servers == nil || len(f.Servers) != 0 {
		t.Fatalf("Read of a missing file = %+v, want an empty cache", f)
	}
}

func TestReadBroken(t *testing.T) {
	tests := []struct {
		name    string
		content string
		dir     bool // make path a directory instead of a file
		wantErr string
	}{
		{name: "empty file", content: "", wantErr: "unexpected end"},
		{name: "garbage", content: "not json", wantErr: "invalid character"},
		{name: "truncated", content: `{"version":1,"servers":{"a":{"fingerprint":"x","tools":[`, wantErr: "unexpected end"},
		{name: "trailing garbage", content: `{"version":1,"servers":{}} x`, wantErr: "after top-level value"},
		{name: "bad schema inside", content: `{"version":1,"servers":{"a":{"fingerprint":"x","tools":[{"name":"t","inputSchema":{"a":tru}}]}}}`, wantErr: "invalid character"},
		{name: "wrong shape", content: `{"version":1,"servers":[]}`, wantErr: "cannot unmarshal"},
		{name: "unknown version", content: `{"version":2,"servers":{}}`, wantErr: "unknown version 2"},
		{name: "unknown version other shape", content: `{"version":3,"servers":[1,2]}`, wantErr: "unknown version 3"},
		{name: "no version", content: `{"servers":{}}`, wantErr: "unknown version 0"},
		{name: "directory", dir: true, wantErr: "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			var err error
			if tt.dir {
				err = os.Mkdir(path, 0o700)
			} else {
				err = os.WriteFile(path, []byte(tt.content), 0o600)
			}
			if err != nil {
				t.Fatal(err)
			}
			f, err := Read(path)
			if f == nil || f.Version != Version || f.Servers == nil || len(f.Servers) != 0 {
				t.Errorf("Read = %+v, want an empty cache", f)
			}
			if err == nil {
				t.Fatal("Read: no error")
			}
			for _, want := range []string{path, "ignored", "rewritten on the next refresh", tt.wantErr} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestReadTolerates(t *testing.T) {
	tests := []struct {
		name      string
		content   string
		servers   int
		wantInput string
	}{
		{name: "null servers", content: `{"version":1,"servers":null}`},
		{name: "no servers", content: `{"version":1}`},
		{name: "null entry dropped", content: `{"version":1,"servers":{"a":null}}`},
		{name: "unknown fields", content: `{"version":1,"extra":[1],"servers":{"a":{"fingerprint":"x","new":true,"tools":[]}}}`, servers: 1},
		{
			name:      "multi-line schema compacted",
			content:   "{\"version\":1,\"servers\":{\"a\":{\"fingerprint\":\"x\",\"tools\":[{\"name\":\"t\",\"inputSchema\":{\n \"type\": \"object\",\r\n \"properties\": {}\n}}]}}}",
			servers:   1,
			wantInput: `{"type":"object","properties":{}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			f := mustRead(t, path)
			if f.Servers == nil || len(f.Servers) != tt.servers {
				t.Fatalf("servers = %v, want %d", f.Servers, tt.servers)
			}
			if tt.wantInput != "" {
				if got := string(f.Servers["a"].Tools[0].InputSchema); got != tt.wantInput {
					t.Errorf("schema = %s, want %s", got, tt.wantInput)
				}
			}
		})
	}
}

// fileID identifies one version of a file on disk.
type fileID struct {
	info os.FileInfo
}

func statFile(t *testing.T, path string) fileID {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileID{info}
}

func (a fileID) same(b fileID) bool {
	return os.SameFile(a.info, b.info) && a.info.ModTime().Equal(b.info.ModTime()) && a.info.Size() == b.info.Size()
}

func TestUpdate(t *testing.T) {
	modified := sampleEntry("1")
	modified.Tools[0].Description = "changed"
	newTime := sampleEntry("1")
	newTime.UpdatedAt = newTime.UpdatedAt.Add(time.Hour)
	renamed := sampleEntry("1")
	renamed.ServerName = "other-name"
	unsorted := sampleEntry("1") // same tools, other order: equal once sorted
	unsorted.Tools[0], unsorted.Tools[1] = unsorted.Tools[1], unsorted.Tools[0]
	unsorted.UpdatedAt = time.Time{}
	moved := sampleEntry("1")
	moved.Transport = "sse"
	newInstr := sampleEntry("1")
	newInstr.Instructions = "use me"

	start := map[string]*Server{"one": sampleEntry("1"), "foreign": sampleEntry("f")}
	tests := []struct {
		name        string
		put         map[string]*Server
		drop        []string
		wantChanged bool
		wantWrite   bool
		want        map[string]*Server // expected stored entries (compared with sameStored)
	}{
		{
			name: "unchanged put", put: map[string]*Server{"one": sampleEntry("1")},
			want: start,
		},
		{
			name: "only UpdatedAt differs keeps stored entry", put: map[string]*Server{"one": newTime},
			want: start,
		},
		{
			name: "unsorted equal tools", put: map[string]*Server{"one": unsorted},
			want: start,
		},
		{
			name: "nothing to do", want: start,
		},
		{
			name: "drop unknown name", drop: []string{"ghost"}, want: start,
		},
		{
			name: "tools changed", put: map[string]*Server{"one": modified},
			wantChanged: true, wantWrite: true,
			want: map[string]*Server{"one": modified, "foreign": sampleEntry("f")},
		},
		{
			name: "transport changed", put: map[string]*Server{"one": moved},
			wantChanged: true, wantWrite: true,
			want: map[string]*Server{"one": moved, "foreign": sampleEntry("f")},
		},
		{
			name: "instructions changed", put: map[string]*Server{"one": newInstr},
			wantChanged: true, wantWrite: true,
			want: map[string]*Server{"one": newInstr, "foreign": sampleEntry("f")},
		},
		{
			name: "server name only: rewritten, not changed", put: map[string]*Server{"one": renamed},
			wantWrite: true,
			want:      map[string]*Server{"one": renamed, "foreign": sampleEntry("f")},
		},
		{
			name: "new server keeps foreign", put: map[string]*Server{"two": sampleEntry("2")},
			wantChanged: true, wantWrite: true,
			want: map[string]*Server{"one": sampleEntry("1"), "two": sampleEntry("2"), "foreign": sampleEntry("f")},
		},
		{
			name: "drop removes", drop: []string{"one"},
			wantChanged: true, wantWrite: true,
			want: map[string]*Server{"foreign": sampleEntry("f")},
		},
		{
			name: "drop wins over put", put: map[string]*Server{"one": modified}, drop: []string{"one"},
			wantChanged: true, wantWrite: true,
			want: map[string]*Server{"foreign": sampleEntry("f")},
		},
		{
			name: "nil put ignored", put: map[string]*Server{"one": nil},
			want: start,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "new", "home")
			path := filepath.Join(dir, FileName)
			if !mustUpdate(t, path, start, nil) {
				t.Fatal("initial Update reported no change")
			}
			// Age the file so that a rewrite is visible in its mtime.
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
			before := statFile(t, path)

			changed := mustUpdate(t, path, tt.put, tt.drop)
			if changed != tt.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tt.wantChanged)
			}
			after := statFile(t, path)
			if wrote := !before.same(after); wrote != tt.wantWrite {
				t.Errorf("file rewritten = %v, want %v", wrote, tt.wantWrite)
			}
			got := mustRead(t, path)
			if len(got.Servers) != len(tt.want) {
				t.Errorf("servers = %d, want %d", len(got.Servers), len(tt.want))
			}
			for name, w := range tt.want {
				if e := got.Servers[name]; e == nil || !sameStored(e, w) {
					t.Errorf("server %q = %+v, want %+v", name, e, w)
				}
			}

			if mode := after.info.Mode().Perm(); mode != 0o600 {
				t.Errorf("file mode = %o, want 600", mode)
			}
			if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
				t.Errorf("directory mode = %v (%v), want 700", info.Mode().Perm(), err)
			}
			assertNoTempFiles(t, dir)
		})
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if n := e.Name(); n != FileName && n != FileName+".lock" {
			t.Errorf("unexpected file left in %s: %s", dir, n)
		}
	}
}

func TestUpdateReplacesBrokenFile(t *testing.T) {
	tests := []struct {
		name        string
		content     string
		put         map[string]*Server
		wantChanged bool
	}{
		{name: "corrupt, nothing to put", content: "{oops"},
		{name: "old version, nothing to put", content: `{"version":0,"servers":{}}`},
		{name: "corrupt with put", content: "{oops", put: map[string]*Server{"one": sampleEntry("1")}, wantChanged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if changed := mustUpdate(t, path, tt.put, nil); changed != tt.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tt.wantChanged)
			}
			f := mustRead(t, path)
			if len(f.Servers) != len(tt.put) {
				t.Errorf("servers = %d, want %d", len(f.Servers), len(tt.put))
			}
			if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
				t.Errorf("mode = %o, want 600", info.Mode().Perm())
			}
		})
	}
}

func TestUpdateMissingFileNothingToWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if mustUpdate(t, path, nil, []string{"x"}) {
		t.Error("changed = true")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file written although empty: %v", err)
	}
}

func TestUpdateUnreadableFileKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Update(t.Context(), path, map[string]*Server{"one": sampleEntry("1")}, nil, time.Now); err == nil {
		t.Fatal("Update over an unreadable file: no error")
	}
}

func TestUpdateHonoursContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	held := flock.New(path + ".lock")
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := Update(ctx, path, map[string]*Server{"one": sampleEntry("1")}, nil, time.Now)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Update with the lock held elsewhere: err = %v, want deadline exceeded", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file written without the lock: %v", err)
	}

	canceled, cancelNow := context.WithCancel(t.Context())
	cancelNow()
	if _, err := Update(canceled, path, nil, nil, time.Now); !errors.Is(err, context.Canceled) {
		t.Errorf("Update with a canceled context: err = %v", err)
	}
}

func TestUpdateConcurrentGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	const workers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				name := fmt.Sprintf("g%d-%d", w, i)
				if _, err := Update(t.Context(), path, map[string]*Server{name: sampleEntry(name)}, nil, time.Now); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	f := mustRead(t, path)
	if len(f.Servers) != workers*each {
		t.Fatalf("servers = %d, want %d", len(f.Servers), workers*each)
	}
	assertNoTempFiles(t, filepath.Dir(path))
}

const (
	childPathEnv = "MCP_BRIDGE_CACHE_TEST_CHILD_PATH"
	childIDEnv   = "MCP_BRIDGE_CACHE_TEST_CHILD_ID"
	childUpdates = 40
)

// TestUpdateChildProcess is the body of the child processes started by
// TestUpdateConcurrentProcesses; run directly, it does nothing.
func TestUpdateChildProcess(t *testing.T) {
	path, id := os.Getenv(childPathEnv), os.Getenv(childIDEnv)
	if path == "" {
		return
	}
	for i := range childUpdates {
		name := fmt.Sprintf("p%s-%d", id, i)
		put := map[string]*Server{name: sampleEntry(name)}
		// Also keep rewriting one shared server, so that the two processes
		// really do contend for the same file content.
		shared := sampleEntry(fmt.Sprintf("%s-%d", id, i))
		put["shared"] = shared
		if _, err := Update(t.Context(), path, put, nil, time.Now); err != nil {
			t.Fatalf("child %s update %d: %v", id, i, err)
		}
	}
}

func TestUpdateConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	// A foreign entry written before the children start must survive.
	mustUpdate(t, path, map[string]*Server{"foreign": sampleEntry("f")}, nil)

	ids := []string{"a", "b"}
	var wg sync.WaitGroup
	outs := make([][]byte, len(ids))
	errs := make([]error, len(ids))
	for i, id := range ids {
		cmd := childCmd(t, id, path)
		wg.Go(func() { outs[i], errs[i] = cmd.CombinedOutput() })
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil {
			t.Fatalf("child %s: %v\n%s", ids[i], errs[i], outs[i])
		}
		if !strings.Contains(string(outs[i]), "PASS") {
			t.Fatalf("child %s did not run the helper test:\n%s", ids[i], outs[i])
		}
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(data) {
		t.Fatal("file is not valid JSON after concurrent updates")
	}
	f := mustRead(t, path)
	if want := len(ids)*childUpdates + 2; len(f.Servers) != want {
		t.Errorf("servers = %d, want %d", len(f.Servers), want)
	}
	for _, id := range ids {
		for i := range childUpdates {
			name := fmt.Sprintf("p%s-%d", id, i)
			if e := f.Servers[name]; e == nil || !sameStored(e, sampleEntry(name)) {
				t.Errorf("entry %q lost or wrong: %+v", name, e)
			}
		}
	}
	if e := f.Servers["foreign"]; e == nil || !sameStored(e, sampleEntry("f")) {
		t.Error("foreign entry lost")
	}
	assertNoTempFiles(t, dir)
}

// childCmd returns the command that re-runs this test binary as a child
// process executing TestUpdateChildProcess with the given id on path.
func childCmd(t *testing.T, id, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestUpdateChildProcess$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childPathEnv+"="+path, childIDEnv+"="+id)
	return cmd
}
