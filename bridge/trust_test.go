package bridge

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/trust"
)

// callTool calls a tool the way the host does and returns the result and its text.
func (he *hostEnv) callTool(name string, args any) (extension.ToolResult, string) {
	he.t.Helper()
	raw, _ := json.Marshal(args)
	r := he.b.CallTool(ctxGuard(he.t), extension.ToolCall{ID: "call", Name: name, Args: raw})
	return r, textOf(he.t, r)
}

// TestTrustHTTPProjectServerNotContacted: a project HTTP entry that replaces a global one and
// sends ${HOME} in a header gets no request before approval — not from the background
// refresh, a search, a call, /mcp start, /mcp refresh or /mcp login — and is contacted once
// the user approves it.
func TestTrustHTTPProjectServerNotContacted(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "not an MCP server", http.StatusInternalServerError)
	}))
	defer srv.Close()

	e := newTestEnv(t)
	e.env["HOME"] = "/home/planted-home"
	e.write(map[string]any{
		"web": map[string]any{"type": "http", "url": "https://example.invalid/mcp", "headers": map[string]any{"Authorization": "Bearer ${TOKEN}"}},
		"g":   e.server(), // no cache entry: the background refresh runs at startup
	}, nil)
	e.writeProject(map[string]any{"web": map[string]any{"type": "http", "url": srv.URL + "/mcp", "headers": map[string]any{"X-Home": "${HOME}"}}})
	he := e.startHost(nil)

	// The startup note names the server, what it would contact, the replaced entry and the
	// command; the background refresh of g has finished when its own note arrives.
	note, err := he.h.WaitNotify(ctxGuard(t), "MCP: approve with")
	if err != nil {
		t.Fatal(err)
	}
	has(t, "startup note", note.Message, "web (connects to "+srv.URL+"/mcp with headers X-Home", "replaces the entry of the same name in "+config.GlobalPath(e.home), "MCP: approve with /mcp trust web", "mcp-bridge trust web")
	hasNot(t, "startup note", note.Message, "planted-home")
	if _, err := he.h.WaitNotify(ctxGuard(t), "MCP tool cache updated for g"); err != nil {
		t.Fatal(err)
	}

	has(t, "/mcp start web", he.fail("start web").Error, "not approved", "/mcp trust web")
	has(t, "/mcp refresh web", he.fail("refresh web").Error, "/mcp trust web")
	has(t, "/mcp login web", he.fail("login web").Error, "/mcp trust web")
	has(t, "/mcp start all", he.ok("start all"), "g: ready", "Skipped (needs your approval: /mcp trust <server>): web")
	r, text := he.callTool(SearchToolName, map[string]any{"query": "web"})
	if !r.IsError {
		t.Errorf("a search naming the unapproved server is not an error: %s", text)
	}
	has(t, "search", text, "Only the user can approve it", "/mcp trust web")
	r, text = he.callTool("mcp__web__fetch", map[string]any{})
	if !r.IsError {
		t.Errorf("a call to the unapproved server is not an error: %s", text)
	}
	has(t, "call", text, "/mcp trust web")
	rows := he.ok("")
	has(t, "/mcp", rows, "needs approval", "replaces global", "connects to "+srv.URL+"/mcp", "approve: /mcp trust web")
	hasNot(t, "/mcp", rows, "planted-home")
	if n := hits.Load(); n != 0 {
		t.Fatalf("the unapproved project server got %d requests", n)
	}

	has(t, "/mcp trust web", he.ok("trust web"), "Approved for "+e.project, "web: connects to "+srv.URL+"/mcp")
	ctx := ctxGuard(t)
	for hits.Load() == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the approved server was never contacted (its tools should be listed in the background)")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestTrustCommands: /mcp trust and /mcp untrust, what they answer and what they change.
func TestTrustCommands(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	rec := filepath.Join(t.TempDir(), "proj.jsonl")
	e.write(map[string]any{"g": e.server()}, nil)
	// proj shares its listing (cacheScope public): a project server's private listing,
	// the modern era's default, is never cached, and the note below is about the cache.
	e.writeProject(map[string]any{"proj": e.server("-record", rec, "-list-hints", "0,public"), "off": mergeMap(e.server("-record", rec), map[string]any{"enabled": false})})
	e.seedCache(map[string]int{"g": 1})
	he := e.startHost(nil)
	// A disabled project entry is shown as disabled, not as waiting, yet stays gated.
	has(t, "/mcp off", he.ok("off"), `MCP server "off" — disabled`, "trust:      needs your approval")
	hasNot(t, "/mcp trust (list)", he.ok("trust"), "off:")
	if he.server("off").NeedsApproval() {
		t.Error("a disabled entry is reported as waiting for approval")
	}

	has(t, "/mcp trust (list)", he.ok("trust"), "Project servers awaiting your approval:", "proj: runs `"+e.fake+" -marker "+e.marker, config.ProjectPath(e.project))
	has(t, "/mcp proj", he.ok("proj"), `MCP server "proj" — needs approval`, "trust:      needs your approval", "approve with /mcp trust proj")
	has(t, "/mcp g", he.ok("g"), `MCP server "g" — asleep`)
	hasNot(t, "/mcp g", he.ok("g"), "trust:")
	has(t, "/mcp trust g", he.fail("trust g").Error, "global file", "needs no approval")
	has(t, "/mcp trust nope", he.fail("trust nope").Error, `unknown server "nope"`)
	has(t, "/mcp trust a b", he.fail("trust a b").Error, "usage: /mcp trust <server|all>")

	// Nothing reaches the unapproved server.
	r := he.b.CallByName(ctxGuard(t), "proj", "echo", json.RawMessage(`{"text":"hi"}`))
	has(t, "CLI-style call", textOf(t, r), "not approved", "mcp-bridge trust proj")
	if _, err := he.server("proj").ListTools(ctxGuard(t)); err == nil || !strings.Contains(err.Error(), "/mcp trust proj") {
		t.Errorf("ListTools on an unapproved server: %v", err)
	}
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Fatalf("the unapproved server ran (its record exists: %v)", err)
	}

	has(t, "/mcp trust all", he.ok("trust all"), "Approved for "+e.project, "proj: runs `", "Listing the tools of proj in the background",
		"off: runs `", "not usable yet")
	if _, err := he.h.WaitNotify(ctxGuard(t), "MCP tool cache updated for proj"); err != nil {
		t.Fatal(err)
	}
	if res, text := he.callTool("mcp__proj__echo", map[string]any{"text": "after trust"}); res.IsError || text != "after trust" {
		t.Fatalf("call after trust: %v %q", res.IsError, text)
	}
	has(t, "/mcp proj approved", he.ok("proj"), "trust:      approved for this project", "/mcp untrust proj")
	f, err := trust.Read(trust.DefaultPath(e.home))
	if err != nil || !approved(f, e.project, "proj", trust.Fingerprint(he.server("proj").Config())) {
		t.Fatalf("approval not stored: %v %+v", err, f)
	}

	has(t, "/mcp untrust proj", he.ok("untrust proj"), "Withdrew the approval of proj", "stopped")
	wantState(t, he.server("proj"), lifecycle.StateAsleep, "after untrust")
	if res, text := he.callTool("mcp__proj__echo", map[string]any{"text": "again"}); !res.IsError || !strings.Contains(text, "/mcp trust proj") {
		t.Fatalf("call after untrust: %v %q", res.IsError, text)
	}
	if f, _ := trust.Read(trust.DefaultPath(e.home)); approved(f, e.project, "proj", trust.Fingerprint(he.server("proj").Config())) {
		t.Fatal("untrust left the approval in the store")
	}
	has(t, "/mcp untrust proj again", he.ok("untrust proj"), "No approvals to withdraw")
	has(t, "/mcp untrust g", he.fail("untrust g").Error, "needs no approval")
}

// TestTrustFollowsTheEntry: an approval holds for the same project and the same entry only;
// editing what runs asks again, editing a timeout does not; the global opt-out lets project
// servers run and only the global file can set it.
func TestTrustFollowsTheEntry(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"g": e.server()}, nil)
	e.writeProject(map[string]any{"proj": e.server("-name", "one")})
	pending := func(b *Bridge, want bool, why string) {
		t.Helper()
		if got := e.srv(b, "proj").NeedsApproval(); got != want {
			t.Fatalf("%s: proj needs approval = %v, want %v", why, got, want)
		}
		if e.srv(b, "g").NeedsApproval() {
			t.Fatalf("%s: the global server needs approval", why)
		}
	}
	b := e.bridge(extension.GenNew)
	pending(b, true, "before approval")
	if _, err := b.Command(ctxGuard(t), "trust proj"); err != nil {
		t.Fatal(err)
	}
	pending(b, false, "after /mcp trust")
	pending(e.bridge(extension.GenNew), false, "next start")

	e.writeProject(map[string]any{"proj": mergeMap(e.server("-name", "one"), map[string]any{"idleTimeout": 5, "instructions": "x"})})
	pending(e.bridge(extension.GenNew), false, "timeout and instructions edited")

	e.writeProject(map[string]any{"proj": e.server("-name", "two")})
	b = e.bridge(extension.GenNew)
	pending(b, true, "args edited")
	has(t, "/mcp after an edit", b.statusText(), "needs approval", "-name two")

	other := e.project
	e.project = t.TempDir()
	e.writeProject(map[string]any{"proj": e.server("-name", "one")})
	pending(e.bridge(extension.GenNew), true, "the approved entry in another project")
	e.project = other

	e.writeProject(map[string]any{"proj": e.server("-name", "two")})
	e.write(map[string]any{"g": e.server()}, map[string]any{"trustProjectServers": true})
	b = e.bridge(extension.GenNew)
	pending(b, false, "global opt-out")
	_, err := b.Command(ctxGuard(t), "trust proj")
	if err == nil || !strings.Contains(err.Error(), "trustProjectServers") {
		t.Errorf("/mcp trust under the opt-out: %v", err)
	}
	has(t, "detail under the opt-out", b.detailText("proj"), "runs without approval")

	// With only unapproved servers, the search tool says why it offers nothing.
	e.write(map[string]any{}, nil)
	b = e.bridge(extension.GenNew)
	has(t, "search description", b.searchDescription(nil), "wait for the user's approval (/mcp trust)")
	hasNot(t, "search description", b.searchDescription(nil), "being listed")
}

// TestInstructions: an entry's instructions go with its search results (both modes) and,
// in proxy mode, with its first call result; they are cut to a bound on a rune boundary and
// shown without the invisible characters they carry.
func TestInstructions(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", maxInstructions) // 2 bytes each: twice the bound
	for _, mode := range []string{"deferred", "proxy"} {
		t.Run(mode, func(t *testing.T) {
			e := newTestEnv(t)
			e.write(map[string]any{
				"s":     mergeMap(e.server(), map[string]any{"instructions": "  Prefer echo\u200b for\u202e greetings.\x07  "}),
				"big":   mergeMap(e.server("-name", "big"), map[string]any{"instructions": long}),
				"plain": e.server("-name", "plain"),
			}, map[string]any{"toolExposure": mode})
			if _, errs := e.bridge(extension.GenNew).Refresh(ctxGuard(t), []string{"s", "big", "plain"}); len(errs) > 0 {
				t.Fatal(errs)
			}
			b := e.bridge(extension.GenNew) // as after /reload-ext: the listed tools are registered

			search := func(q string) string {
				raw, _ := json.Marshal(map[string]any{"query": q, "limit": 20})
				return textOf(t, b.CallTool(ctxGuard(t), extension.ToolCall{ID: "s", Name: SearchToolName, Args: raw}))
			}
			text := search("select:mcp__s__echo")
			has(t, "search", text, `Instructions for MCP server "s": Prefer echo for greetings.`)
			if strings.Count(text, "Instructions for") != 1 {
				t.Errorf("instructions shown more or less than once:\n%s", text)
			}
			text = search("select:mcp__big__echo,mcp__plain__echo")
			i := strings.Index(text, `Instructions for MCP server "big": `)
			if i < 0 {
				t.Fatalf("big's instructions missing:\n%.300s", text)
			}
			shown := text[i+len(`Instructions for MCP server "big": `):]
			if len(shown) > maxInstructions || !strings.HasSuffix(shown, "…") || !utf8.ValidString(shown) {
				t.Errorf("big's instructions are %d bytes (bound %d), marker %v, valid UTF-8 %v", len(shown), maxInstructions, strings.HasSuffix(shown, "…"), utf8.ValidString(shown))
			}
			hasNot(t, "search", text, `server "plain":`)
			hasNot(t, "search for other servers", search("select:mcp__plain__echo"), "Instructions for")

			call := func() string {
				raw, _ := json.Marshal(map[string]any{"server": "s", "tool": "echo", "arguments": map[string]any{"text": "hi"}})
				r := b.CallTool(ctxGuard(t), extension.ToolCall{ID: "c", Name: CallToolName, Args: raw})
				if r.IsError {
					t.Fatalf("call: %s", textOf(t, r))
				}
				return textOf(t, r)
			}
			first, second := call(), call()
			if mode == "proxy" {
				if first != "Instructions for MCP server \"s\": Prefer echo for greetings.\nhi" {
					t.Errorf("first proxy call result = %q, want the instructions, then hi", first)
				}
			} else if first != "hi" {
				t.Errorf("first deferred call result = %q, want hi", first)
			}
			if second != "hi" {
				t.Errorf("second call result = %q, want hi", second)
			}
		})
	}
}

// approved reports whether f approves server, with the given fingerprint, for project:
// the check the bridge makes through Pins.
func approved(f *trust.File, project, server, fingerprint string) bool {
	_, ok := f.Pins(trust.Target{Project: project, Server: server, Fingerprint: fingerprint})
	return ok
}
