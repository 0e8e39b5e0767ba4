package bridge

import (
	"encoding/json"
	"fmt"
	"github.com/zot-mcp/mcp-bridge/resources"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// These tests run the real npm @modelcontextprotocol/server-everything over stdio, with
// its tool, resource and prompt lists cached by a refresh first (as a user's session
// finds them), behind a fake zot host.

// everythingSession is a fake host talking to a bridge that bridges the everything server.
type everythingSession struct {
	e    *testEnv
	h    *exttest.Host
	b    *Bridge
	log  *testutil.SyncBuffer
	regs []exttest.Frame
}

// everythingHost configures the everything server (plus extra servers), fills the cache
// and starts a bridge behind a host with caps (nil: a host without capabilities).
// sampling makes the client claim the sampling capability (see mcpx.advertiseSampling).
func everythingHost(t *testing.T, caps []string, sampling bool, extra map[string]any) *everythingSession {
	t.Helper()
	bin := testutil.NPMBin(t)
	e := newTestEnv(t)
	servers := map[string]any{"everything": map[string]any{"command": filepath.Join(bin, "mcp-server-everything"), "args": []string{"stdio"}, "connectTimeout": 60}}
	for k, v := range extra {
		servers[k] = v
	}
	e.write(servers, nil)
	names := []string{}
	for k := range servers {
		names = append(names, k)
	}
	pre := e.bridge(extension.GenNew)
	pre.x.advertiseSampling = sampling
	if _, errs := pre.Refresh(ctxGuard(t), names); len(errs) > 0 {
		t.Fatalf("refresh: %v", errs)
	}
	pre.Close(ctxGuard(t))

	log := &testutil.SyncBuffer{}
	b := New(Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(io.MultiWriter(log, testutil.Log(t))).Level(zerolog.DebugLevel),
		Supervisor: supervisorArgv(), Connect: e.connect(), Resolver: noDNS()})
	b.x.advertiseSampling = sampling
	h := serveHost(t, b)
	regs := h.Handshake(ctxGuard(t), exttest.Ack{Cwd: e.project, Capabilities: caps})
	return &everythingSession{e: e, h: h, b: b, log: log, regs: regs}
}

// registered returns the register_tool frame of name.
func (s *everythingSession) registered(name string) (map[string]json.RawMessage, bool) {
	for _, f := range s.regs {
		var m map[string]json.RawMessage
		if f.Type != "register_tool" || f.Decode(&m) != nil {
			continue
		}
		if string(m["name"]) == `"`+name+`"` {
			return m, true
		}
	}
	return nil, false
}

func (s *everythingSession) call(t *testing.T, id, tool string, args any) exttest.ToolResult {
	t.Helper()
	r, err := s.h.CallTool(ctxGuard(t), id, tool, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return r
}

// TestEverythingResources: a search finds a static resource and a template of the
// everything server and activates mcp__read_resource, which reads them; text comes with
// its URI, text carried as a text/plain blob is decoded.
func TestEverythingResources(t *testing.T) {
	t.Parallel()
	s := everythingHost(t, []string{"call_tool"}, false, nil)
	reg, ok := s.registered(resources.ReadResourceToolName)
	if !ok || string(reg["deferred"]) != "true" {
		t.Fatalf("%s not registered deferred on a host with deferred tools: %v", resources.ReadResourceToolName, reg)
	}
	const uri = "demo://resource/static/document/architecture.md"
	r := s.call(t, "s1", SearchToolName, map[string]any{"query": "architecture document"})
	if r.IsError || !strings.Contains(r.Text(), `uri="`+uri+`"`) || !strings.Contains(r.Text(), `server="everything"`) || !strings.Contains(r.Text(), "text/markdown") {
		t.Fatalf("search did not show the architecture resource:\n%s", r.Text())
	}
	if !slices.Contains(r.ActivateTools, resources.ReadResourceToolName) {
		t.Fatalf("a search that shows a resource must activate %s: %v", resources.ReadResourceToolName, r.ActivateTools)
	}
	want, err := os.ReadFile(filepath.Join(testutil.NPMBin(t), "..", "@modelcontextprotocol", "server-everything", "dist", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	firstLine, _, _ := strings.Cut(strings.TrimSpace(string(want)), "\n")
	r = s.call(t, "r1", resources.ReadResourceToolName, map[string]any{"server": "everything", "uri": uri})
	if r.IsError || !strings.Contains(r.Text(), "[resource "+uri+"]") || !strings.Contains(r.Text(), firstLine) {
		t.Fatalf("read %s: is_error=%v\n%s", uri, r.IsError, r.Text())
	}

	r = s.call(t, "s2", SearchToolName, map[string]any{"query": "dynamic blob resource"})
	if !strings.Contains(r.Text(), `uri_template="demo://resource/dynamic/blob/{resourceId}"`) || !strings.Contains(r.Text(), "fill in the {placeholders}") {
		t.Fatalf("search did not show the blob template:\n%s", r.Text())
	}
	r = s.call(t, "r2", resources.ReadResourceToolName, map[string]any{"server": "everything", "uri": "demo://resource/dynamic/blob/7"})
	if r.IsError || !strings.Contains(r.Text(), "[resource demo://resource/dynamic/blob/7]") || strings.Contains(r.Text(), "not shown") {
		t.Fatalf("read blob: is_error=%v\n%s", r.IsError, r.Text())
	}
	r = s.call(t, "r3", resources.ReadResourceToolName, map[string]any{"server": "everythin", "uri": uri})
	if !r.IsError || !strings.Contains(r.Text(), `Did you mean "everything"`) {
		t.Fatalf("unknown server: %s", r.Text())
	}
}

// TestEverythingResourcesProxy: on a host without deferred tools (the released zot) the
// model sees the search and call tools only, at most 2 KB of definitions, although the
// server has resources and tasks; a search that finds a resource says how to read it through
// mcp__call_tool, and that call reads it.
func TestEverythingResourcesProxy(t *testing.T) {
	t.Parallel()
	s := everythingHost(t, nil, false, nil)
	var names []string
	size := 0
	for _, f := range s.regs {
		if f.Type == "register_tool" {
			var m struct {
				Name string `json:"name"`
			}
			if err := f.Decode(&m); err != nil {
				t.Fatal(err)
			}
			names = append(names, m.Name)
			size += len(f.Raw)
		}
	}
	if strings.Join(names, ",") != SearchToolName+","+CallToolName || size > 2048 {
		t.Fatalf("the released zot's model gets %v in %d bytes; want the search and call tools in at most 2048", names, size)
	}
	r := s.call(t, "s1", SearchToolName, map[string]any{"query": "architecture document"})
	if len(r.ActivateTools) != 0 || !strings.Contains(r.Text(), "architecture.md") ||
		!strings.Contains(r.Text(), `read one with mcp__call_tool {"server": …, "tool": "mcp:read_resource", "arguments": {"uri": …}}`) {
		t.Fatalf("proxy search: activate %v\n%s", r.ActivateTools, r.Text())
	}
	r = s.call(t, "r1", CallToolName, map[string]any{"server": "everything", "tool": ReadResourceCall, "arguments": map[string]any{"uri": "demo://resource/dynamic/text/3"}})
	if r.IsError || !strings.Contains(r.Text(), "[resource demo://resource/dynamic/text/3]") {
		t.Fatalf("read text template through mcp__call_tool: %s", r.Text())
	}
	r = s.call(t, "r2", CallToolName, map[string]any{"server": "everything", "tool": ReadResourceCall})
	if !r.IsError || !strings.Contains(r.Text(), "mcp__call_tool mcp:read_resource: both server and uri are required") {
		t.Fatalf("a read without a uri: %s", r.Text())
	}
}

// TestEverythingPrompts: /mcp prompts lists the cached prompts with their arguments,
// /mcp prompt hands the fetched prompt to zot (action prompt), and a missing required
// argument answers with the usage line.
func TestEverythingPrompts(t *testing.T) {
	t.Parallel()
	s := everythingHost(t, []string{"call_tool"}, false, nil)
	ctx := ctxGuard(t)
	r, err := s.h.Command(ctx, "p1", "mcp", "prompts everything")
	if err != nil || r.Error != "" || r.Action != "display" {
		t.Fatalf("/mcp prompts: %v %q", err, r.Error)
	}
	for _, want := range []string{"/mcp prompt everything args-prompt city=<city> [state=…]", "city (required): Name of the city", "simple-prompt"} {
		if !strings.Contains(r.Display, want) {
			t.Fatalf("/mcp prompts lacks %q:\n%s", want, r.Display)
		}
	}
	r, err = s.h.Command(ctx, "p2", "mcp", `prompt everything args-prompt city="New York" state=NY`)
	if err != nil || r.Error != "" || r.Action != "prompt" || r.Prompt != "What's weather in New York, NY?" {
		t.Fatalf("/mcp prompt: %v action=%q prompt=%q error=%q", err, r.Action, r.Prompt, r.Error)
	}
	r, err = s.h.Command(ctx, "p3", "mcp", "prompt everything args-prompt state=NY")
	if err != nil || r.Action == "prompt" || !strings.Contains(r.Error, "needs city. Usage: /mcp prompt everything args-prompt city=<city> [state=…]") {
		t.Fatalf("missing argument: %v action=%q error=%q", err, r.Action, r.Error)
	}
	r, err = s.h.Command(ctx, "p4", "mcp", "prompt everything simple-promt")
	if err != nil || !strings.Contains(r.Error, `Did you mean "simple-prompt"`) {
		t.Fatalf("unknown prompt: %v %q", err, r.Error)
	}
}

// TestEverythingProgress: a long-running call reports progress as ONE note that is
// replaced at each step and taken away when the call ends.
func TestEverythingProgress(t *testing.T) {
	t.Parallel()
	s := everythingHost(t, []string{"call_tool"}, false, nil)
	const steps = 4
	r := s.call(t, "c1", "mcp__everything__trigger_long_running_operation", map[string]any{"duration": 0.4, "steps": steps})
	if r.IsError || !strings.Contains(r.Text(), "Long running operation completed") {
		t.Fatalf("call: %s", r.Text())
	}
	// Replay the notes as the host shows them: clear_notes empties the list.
	var shown []string
	progressNotes, most := 0, 0
	var texts []string
	for _, f := range s.h.Pending() {
		switch f.Type {
		case "clear_notes":
			shown = nil
		case "notify":
			var n exttest.Notify
			_ = f.Decode(&n)
			shown = append(shown, n.Message)
			if strings.HasPrefix(n.Message, "everything trigger-long-running-operation:") {
				progressNotes++
				texts = append(texts, n.Message)
			}
		}
		live := 0
		for _, m := range shown {
			if strings.Contains(m, "trigger-long-running-operation") {
				live++
			}
		}
		most = max(most, live)
	}
	if progressNotes != steps {
		t.Fatalf("%d progress notes for %d steps, want one per step: %q", progressNotes, steps, texts)
	}
	if most != 1 {
		t.Fatalf("up to %d progress notes on screen at once, want 1 replaced in place", most)
	}
	for _, m := range shown {
		if strings.Contains(m, "trigger-long-running-operation") {
			t.Fatalf("progress note still shown after the call: %q", m)
		}
	}
	if texts[0] != "everything trigger-long-running-operation: 25%" || texts[steps-1] != "everything trigger-long-running-operation: 100%" {
		t.Fatalf("progress texts: %q", texts)
	}
}

// TestEverythingLogging: the server's log messages reach our log with the server name and
// level, and /mcp <server> shows the last ones.
func TestEverythingLogging(t *testing.T) {
	t.Parallel()
	s := everythingHost(t, []string{"call_tool"}, false, nil)
	r := s.call(t, "c1", "mcp__everything__toggle_simulated_logging", map[string]any{})
	if r.IsError || !strings.Contains(r.Text(), "Started simulated") {
		t.Fatalf("toggle: %s", r.Text())
	}
	ctx := ctxGuard(t)
	// The server picks a random level; its texts read "Info-level message", "Alert level-message"…
	simulated := regexp.MustCompile(`(?i)level.message`)
	// The server also logs of its own (the roots it was given), in an order the machine's
	// load decides: the simulated line is looked for among them.
	simulatedLine := func() map[string]any {
		for _, l := range strings.Split(s.log.String(), "\n") {
			var line map[string]any
			if strings.Contains(l, "server log message") && json.Unmarshal([]byte(l), &line) == nil && simulated.MatchString(fmt.Sprint(line["log"])) {
				return line
			}
		}
		return nil
	}
	line := simulatedLine()
	for line == nil {
		select { // polled; the guard only bounds a failure
		case <-ctx.Done():
			t.Fatalf("no simulated server log message in our log:\n%s", s.log.String())
		case <-time.After(20 * time.Millisecond):
		}
		line = simulatedLine()
	}
	if line["server"] != "everything" || line["mcp_level"] == nil {
		t.Fatalf("log line: %v", line)
	}
	d, err := s.h.Command(ctx, "d", "mcp", "everything")
	if err != nil || !strings.Contains(d.Display, "log messages (last") || !simulated.MatchString(d.Display) || !strings.Contains(d.Display, "prompts: 4 (/mcp prompts everything)") {
		t.Fatalf("/mcp everything: %v\n%s", err, d.Display)
	}
	s.call(t, "c2", "mcp__everything__toggle_simulated_logging", map[string]any{})
}

// TestEverythingRoots: the project directory is the client's one root.
func TestEverythingRoots(t *testing.T) {
	t.Parallel()
	s := everythingHost(t, []string{"call_tool"}, false, nil)
	r := s.call(t, "c1", "mcp__everything__get_roots_list", map[string]any{})
	if r.IsError || !strings.Contains(r.Text(), "Current MCP Roots (1 total)") || !strings.Contains(r.Text(), "URI: "+lifecycle.FileURI(s.e.project)) {
		t.Fatalf("get-roots-list: %s", r.Text())
	}
}

// TestEverythingSampling: the client does not claim sampling (the server hides its
// sampling tool); a server that asks anyway gets a clear error and the user a note.
func TestEverythingSampling(t *testing.T) {
	t.Parallel()
	plain := everythingHost(t, []string{"call_tool"}, false, nil)
	if _, ok := plain.registered("mcp__everything__trigger_sampling_request"); ok {
		t.Fatal("the everything server offers its sampling tool, so the client advertised sampling")
	}
	s := everythingHost(t, []string{"call_tool"}, true, nil)
	r := s.call(t, "c1", "mcp__everything__trigger_sampling_request", map[string]any{"prompt": "hello"})
	if !r.IsError || !strings.Contains(r.Text(), "sampling is not supported by this client") {
		t.Fatalf("sampling call: is_error=%v %s", r.IsError, r.Text())
	}
	n, err := s.h.WaitNotify(ctxGuard(t), "(sampling)")
	if err != nil || !strings.Contains(n.Message, `MCP server "everything"`) || n.Level != "warn" {
		t.Fatalf("sampling note: %v %+v", err, n)
	}
}

// TestEverythingStructuredContent: on a host that announces capabilities a tool's
// outputSchema is registered as output_schema and its structuredContent comes back as
// structured_content; a host without capabilities gets the text only.
func TestEverythingStructuredContent(t *testing.T) {
	t.Parallel()
	s := everythingHost(t, []string{"call_tool"}, false, nil)
	reg, ok := s.registered("mcp__everything__get_structured_content")
	if !ok || !strings.Contains(string(reg["output_schema"]), `"temperature"`) {
		t.Fatalf("output_schema not registered: %v", reg)
	}
	r := s.call(t, "c1", "mcp__everything__get_structured_content", map[string]any{"location": "Chicago"})
	var sc map[string]any
	if r.IsError || json.Unmarshal(r.StructuredContent, &sc) != nil || sc["conditions"] != "Light rain / drizzle" {
		t.Fatalf("structured_content: %s (text %s)", r.StructuredContent, r.Text())
	}

	old := everythingHost(t, nil, false, nil)
	r = old.call(t, "c1", CallToolName, map[string]any{"server": "everything", "tool": "get-structured-content", "arguments": map[string]any{"location": "Chicago"}})
	if r.IsError || r.StructuredContent != nil || !strings.Contains(r.Text(), "Light rain / drizzle") {
		t.Fatalf("legacy host: structured=%s text=%s", r.StructuredContent, r.Text())
	}
}

// TestFilesystemServerWorksOnTheProjectRoot: the npm filesystem server started WITHOUT a
// directory argument asks the client for its roots and so works on the project.
func TestFilesystemServerWorksOnTheProjectRoot(t *testing.T) {
	t.Parallel()
	fs := map[string]any{"command": filepath.Join(testutil.NPMBin(t), "mcp-server-filesystem"), "args": []string{}, "connectTimeout": 60}
	s := everythingHost(t, []string{"call_tool"}, false, map[string]any{"fs": fs})
	if err := os.WriteFile(filepath.Join(s.e.project, "hello.txt"), []byte("hello from the project root\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	project, err := filepath.EvalSymlinks(s.e.project)
	if err != nil {
		t.Fatal(err)
	}
	// The server asks for the roots right after the handshake, concurrently with the
	// first call; poll (the guard bounds a failure) until it has them.
	ctx := ctxGuard(t)
	var text string
	for i := 0; ; i++ {
		r := s.call(t, fmt.Sprintf("l%d", i), "mcp__fs__list_allowed_directories", map[string]any{})
		text = r.Text()
		if !r.IsError && strings.Contains(text, project) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the filesystem server never allowed the project directory: %s", text)
		case <-time.After(50 * time.Millisecond):
		}
	}
	r := s.call(t, "r", "mcp__fs__read_text_file", map[string]any{"path": filepath.Join(project, "hello.txt")})
	if r.IsError || !strings.Contains(r.Text(), "hello from the project root") {
		t.Fatalf("read_text_file: %s", r.Text())
	}
}

// TestEverythingResourceListChanged: a resource the server adds during the session
// (notifications/resources/list_changed) is re-listed into the cache and found by the
// next search, without /reload-ext.
func TestEverythingResourceListChanged(t *testing.T) {
	t.Parallel()
	s := everythingHost(t, []string{"call_tool"}, false, nil)
	const uri = "demo://resource/session/listed-later.txt.gz"
	r := s.call(t, "g", "mcp__everything__gzip_file_as_resource", map[string]any{"name": "listed-later.txt.gz", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resourceLink"})
	if r.IsError || !strings.Contains(r.Text(), uri) {
		t.Fatalf("gzip tool: %s", r.Text())
	}
	ctx := ctxGuard(t)
	for i := 0; ; i++ {
		s.e.clock.Advance(250 * time.Millisecond) // the re-list waits for a burst to settle
		res := s.call(t, fmt.Sprintf("s%d", i), SearchToolName, map[string]any{"query": "listed later gz"})
		if strings.Contains(res.Text(), `uri="`+uri+`"`) {
			break
		}
		select { // polled; the guard only bounds a failure
		case <-ctx.Done():
			t.Fatalf("the new resource never became searchable:\n%s", res.Text())
		case <-time.After(50 * time.Millisecond):
		}
	}
	f, err := cache.Read(s.b.opts.CachePath)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, res := range f.Servers["everything"].Resources {
		found = found || res.URI == uri
	}
	if !found {
		t.Fatalf("cache entry lacks %s", uri)
	}
}

// TestEverythingOverStreamableHTTP: the same server over streamable HTTP: its requests
// (roots, sampling) reach the bridge through the wrapped HTTP transport, and progress
// arrives on the call's stream.
func TestEverythingOverStreamableHTTP(t *testing.T) {
	t.Parallel()
	base := startEverything(t, "streamableHttp")
	entry := map[string]any{"url": base + "/mcp", "transport": "streamable-http", "connectTimeout": 30}
	s := everythingHost(t, []string{"call_tool"}, true, map[string]any{"everything": entry})
	r := s.call(t, "roots", "mcp__everything__get_roots_list", map[string]any{})
	if r.IsError || !strings.Contains(r.Text(), "URI: "+lifecycle.FileURI(s.e.project)) {
		t.Fatalf("get-roots-list over HTTP: %s", r.Text())
	}
	r = s.call(t, "sampling", "mcp__everything__trigger_sampling_request", map[string]any{"prompt": "hello"})
	if !r.IsError || !strings.Contains(r.Text(), "sampling is not supported by this client") {
		t.Fatalf("sampling over HTTP: is_error=%v %s", r.IsError, r.Text())
	}
	if _, err := s.h.WaitNotify(ctxGuard(t), "(sampling)"); err != nil {
		t.Fatal(err)
	}
	r = s.call(t, "progress", "mcp__everything__trigger_long_running_operation", map[string]any{"duration": 0.2, "steps": 2})
	if r.IsError {
		t.Fatalf("long-running operation over HTTP: %s", r.Text())
	}
	if _, err := s.h.WaitNotify(ctxGuard(t), "everything trigger-long-running-operation: 100%"); err != nil {
		t.Fatal(err)
	}
}
