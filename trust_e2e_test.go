package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// TestProjectServersWaitForApproval drives the built binary through the fake host and reads
// the process table: a project server whose argv carries its own marker never runs — not at
// startup, not in the background refresh, not for a search, a call or /mcp start — and its
// cached tools are not registered, until /mcp trust; then a call works. Editing its args asks
// again. The global file's servers run without approval throughout.
func TestProjectServersWaitForApproval(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	projMarker := testutil.NewMarker(t)
	t.Cleanup(func() { testutil.KillProcsWithMarker(projMarker) })
	rec := filepath.Join(t.TempDir(), "proj.jsonl")
	projEntry := func(extra ...string) map[string]any {
		return map[string]any{"command": testutil.FakeServer(t),
			// -list-hints: a project server's private listing (the modern era's default) is
			// never cached, and this test is about its cache entry.
			"args": append([]string{"-marker", projMarker, "-max-lifetime", "5m", "-record", rec, "-list-hints", "0,public"}, extra...)}
	}
	writeProject := func(servers map[string]any) {
		t.Helper()
		raw, _ := json.Marshal(map[string]any{"mcpServers": servers})
		p := filepath.Join(e.project, ".zot", "mcp.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e.write(map[string]any{"g": e.fake("-name", "g")}, nil)
	// proj gets a cache entry (approved, refreshed, approval withdrawn: as after a user's
	// untrust); fresh has none, so without the gate the background refresh would start it.
	writeProject(map[string]any{"proj": projEntry(), "fresh": projEntry("-name", "fresh")})
	for _, args := range [][]string{{"trust", "proj"}, {"refresh"}, {"untrust", "--all"}} {
		if out, code := e.run(args...); code != 0 {
			t.Fatalf("mcp-bridge %v: %d\n%s", args, code, out)
		}
	}
	// g has a cache entry now; drop it so the background refresh has work at startup.
	e.write(map[string]any{"g": e.fake("-name", "g"), "g2": e.fake("-name", "g2")}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if left := testutil.WaitNoProcs(ctx, projMarker); len(left) > 0 {
		t.Fatalf("project server processes left after the CLI: %v", left)
	}
	ran := len(testutil.ReadRecord(t, rec))
	notRunning := func(when string) {
		t.Helper()
		if pids := testutil.ProcsWithMarker(projMarker); len(pids) > 0 {
			t.Fatalf("%s: unapproved project server processes are running: %v", when, pids)
		}
		if n := len(testutil.ReadRecord(t, rec)); n != ran {
			t.Fatalf("%s: an unapproved project server was reached (record %d -> %d lines)", when, ran, n)
		}
	}

	h := e.start()
	h.ExpectHello(ctx)
	_, deferred := tools(t, h.Handshake(ctx, newAck(e.project, []string{"call_tool"})))
	for _, d := range deferred {
		if strings.HasPrefix(d.Name, "mcp__proj__") || strings.HasPrefix(d.Name, "mcp__fresh__") {
			t.Fatalf("a tool of an unapproved project server is registered: %s", d.Name)
		}
	}
	if len(deferred) != 13+2 {
		t.Fatalf("registered %d deferred tools, want g's 13, mcp__read_resource and mcp__task_result", len(deferred))
	}
	note, err := h.WaitNotify(ctx, "need your approval")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fresh (runs `", "proj (runs `", "/mcp trust <server>"} {
		if !strings.Contains(note.Unwrapped, want) {
			t.Errorf("startup note lacks %q: %s", want, note.Unwrapped)
		}
	}
	// The marker is longer than a line of the note, so the wrapping cuts it.
	if !strings.Contains(strings.Join(strings.Fields(note.Message), ""), projMarker) {
		t.Errorf("startup note lacks %q: %s", projMarker, note.Message)
	}
	// Notes wait until zot's UI is up; by then the refresh's note (which keeps the problems
	// in it) may have replaced the startup note.
	if !strings.Contains(note.Unwrapped, "MCP tool cache updated for g2") {
		if _, err := h.WaitNotify(ctx, "MCP tool cache updated for g2"); err != nil {
			t.Fatal(err)
		}
	}
	notRunning("after startup and the background refresh")

	res, err := h.CallTool(ctx, "1", "mcp__search_tools", map[string]any{"query": "proj echo"})
	if err != nil || !res.IsError || !strings.Contains(res.Text(), "/mcp trust proj") {
		t.Fatalf("search naming proj: %v %v %s", err, res.IsError, res.Text())
	}
	res, err = h.CallTool(ctx, "2", "mcp__search_tools", map[string]any{"query": "echo the given text", "limit": 20})
	if err != nil || res.IsError || strings.Contains(res.Text(), "mcp__proj__") || !strings.Contains(res.Text(), "mcp__g__echo") {
		t.Fatalf("search: %v %v %s", err, res.IsError, res.Text())
	}
	res, err = h.CallTool(ctx, "3", "mcp__proj__echo", map[string]any{"text": "hi"})
	if err != nil || !res.IsError || !strings.Contains(res.Text(), "/mcp trust proj") {
		t.Fatalf("call before approval: %v %v %s", err, res.IsError, res.Text())
	}
	for i, args := range []string{"start proj", "start fresh", "refresh proj"} {
		r, err := h.Command(ctx, "c"+string(rune('0'+i)), "mcp", args)
		if err != nil || !strings.Contains(r.Error, "/mcp trust") {
			t.Fatalf("/mcp %s: %v %+v", args, err, r)
		}
	}
	r, err := h.Command(ctx, "c5", "mcp", "start all")
	if err != nil || r.Error != "" || !strings.Contains(r.Display, "Skipped (needs your approval: /mcp trust <server>): fresh, proj") {
		t.Fatalf("/mcp start all: %v %+v", err, r)
	}
	r, err = h.Command(ctx, "c6", "mcp", "")
	if err != nil || strings.Count(r.Display, "needs approval") != 2 || !strings.Contains(strings.Join(strings.Fields(r.Display), ""), projMarker) {
		t.Fatalf("/mcp: %v %q", err, r.Display)
	}
	notRunning("after a search, a call, /mcp start and /mcp refresh")

	// The global server runs without approval.
	if res, err := h.CallTool(ctx, "7", "mcp__g__echo", map[string]any{"text": "global"}); err != nil || res.IsError || res.Text() != "global" {
		t.Fatalf("global call: %v %s", err, res.Text())
	}
	if len(testutil.ProcsWithMarker(e.marker)) == 0 {
		t.Fatal("the global server is not running after a call to it")
	}

	r, err = h.Command(ctx, "c8", "mcp", "trust proj")
	if err != nil || r.Error != "" || !strings.Contains(r.Display, "Approved for "+e.project) {
		t.Fatalf("/mcp trust proj: %v %+v", err, r)
	}
	res, err = h.CallTool(ctx, "9", "mcp__proj__echo", map[string]any{"text": "approved"})
	if err != nil || res.IsError || res.Text() != "approved" {
		t.Fatalf("call after approval: %v %v %s", err, res.IsError, res.Text())
	}
	if len(testutil.ProcsWithMarker(projMarker)) == 0 {
		t.Fatal("the approved server is not running after a call to it")
	}
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if left := testutil.WaitNoProcs(ctx, projMarker); len(left) > 0 {
		t.Fatalf("processes left after shutdown: %v", left)
	}

	// Editing proj's args asks again, in the next session.
	writeProject(map[string]any{"proj": projEntry("-tools", "1"), "fresh": projEntry("-name", "fresh")})
	ran = len(testutil.ReadRecord(t, rec))
	h = e.start()
	h.ExpectHello(ctx)
	_, deferred = tools(t, h.Handshake(ctx, newAck(e.project, []string{"call_tool"})))
	for _, d := range deferred {
		if strings.HasPrefix(d.Name, "mcp__proj__") {
			t.Fatalf("a tool of the edited, unapproved entry is registered: %s", d.Name)
		}
	}
	r, err = h.Command(ctx, "d1", "mcp", "proj")
	if err != nil || !strings.Contains(r.Display, `"proj" — needs approval`) || !strings.Contains(r.Display, "-tools 1") {
		t.Fatalf("/mcp proj after the edit: %v %q", err, r.Display)
	}
	res, err = h.CallTool(ctx, "d2", "mcp__proj__echo", map[string]any{"text": "hi"})
	if err != nil || !res.IsError || !strings.Contains(res.Text(), "/mcp trust proj") {
		t.Fatalf("call after the edit: %v %v %s", err, res.IsError, res.Text())
	}
	notRunning("after the entry changed")
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	_ = h.Wait(ctx)
}
