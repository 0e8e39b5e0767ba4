package bridge

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// startPath says how a start registered: from the startup file's sent section, from its
// payloads, or by decoding the cache.
type startPath string

const (
	pathSent     startPath = "sent section"
	pathPayloads startPath = "payloads"
	pathDecoded  startPath = "decoded cache"
)

// oneStart runs a bridge through hello_ack → ready with ack and stops it, background work
// included; it returns the registrations (raw lines) and how they were made.
func oneStart(t *testing.T, e *testEnv, ack exttest.Ack) ([]string, startPath) {
	t.Helper()
	logs := &testutil.SyncBuffer{}
	b := New(Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(logs).Level(zerolog.DebugLevel),
		Supervisor: supervisorArgv(), Connect: e.connect(), Resolver: noDNS()})
	h, in, out := exttest.NewPipe(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- extension.Run(ctx, in, out, b, extension.Options{Name: "mcp"}) }()
	gctx := ctxGuard(t)
	h.ExpectHello(gctx)
	var frames []string
	for _, f := range h.Handshake(gctx, ack) {
		frames = append(frames, string(f.Raw))
	}
	// Let the after-ready work (the cache decode, the startup file) finish before stopping:
	// a shutdown that came first would skip it, and the startup file would not be written.
	select {
	case <-b.afterReadyDone:
	case <-gctx.Done():
		t.Fatal("the work after ready did not end")
	}
	if err := h.Shutdown(gctx); err != nil {
		t.Fatal(err)
	}
	<-done
	cancel()
	cctx, ccancel := context.WithTimeout(context.Background(), guard)
	defer ccancel()
	b.Close(cctx)
	path := pathDecoded
	if l := logs.String(); strings.Contains(l, `"sent":true,"message":"registering from the startup file"`) {
		path = pathSent
	} else if strings.Contains(l, "registering from the startup file") {
		path = pathPayloads
	}
	return frames, path
}

// waitSent waits until the startup file holds a sent section for the cache as it is.
func waitSent(t *testing.T, cachePath string) {
	t.Helper()
	waitFor(t, "the startup file's sent section", func() bool {
		stamp, err := cache.StampOf(cachePath)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cache.ReadSent(cache.FramesPath(cachePath), stamp)
		return err == nil
	})
}

// dropSent rewrites the startup file with its payloads only.
func dropSent(t *testing.T, cachePath string) {
	t.Helper()
	stamp, err := cache.StampOf(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	path := cache.FramesPath(cachePath)
	servers, err := cache.ReadFrames(path, stamp)
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.WriteStartup(path, stamp, nil, servers); err != nil {
		t.Fatal(err)
	}
}

// TestSentSectionEqualsBuiltRegistrations: a start that copies the startup file's sent
// section sends byte for byte what a start that builds the registrations (from the
// payloads, or by decoding the cache) sends, for several configurations; a section made
// for another configuration is never copied (so a pending project server's tools, a
// newly disabled tool or another host's frames never reach the host from it).
func TestSentSectionEqualsBuiltRegistrations(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	// alpha's MCP instructions are namespace text on the newest zot, kept in the startup file.
	alpha, beta := e.server("-name", "alpha", "-instructions", "Alpha echoes."), e.server("-name", "beta")
	e.write(map[string]any{"alpha": alpha, "beta": beta}, nil)
	pre := e.bridge(extension.GenNew)
	if _, errs := pre.Refresh(ctxGuard(t), []string{"alpha", "beta"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	cachePath := pre.opts.CachePath
	// The project server's tools are in the cache (listed when it was approved in
	// another session), so only the approval check keeps them out.
	proj := e.server("-name", "proj")
	e.writeProject(map[string]any{"proj": proj})
	projCfg := config.Load(config.Options{ZotHome: e.home, ProjectDir: e.project, LookupEnv: e.lookup})
	var projFP string
	for _, s := range projCfg.Servers {
		if s.Name == "proj" {
			projFP = s.Fingerprint()
		}
	}
	file, err := cache.Read(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cache.Update(ctxGuard(t), cachePath, map[string]*cache.Server{"proj": {Fingerprint: projFP, Tools: file.Servers["alpha"].Tools}}, nil, time.Now); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(config.ProjectPath(e.project)); err != nil {
		t.Fatal(err)
	}

	newHost := exttest.Ack{Cwd: e.project, Capabilities: []string{"call_tool"}}
	legacyHost := exttest.Ack{Cwd: e.project}
	cases := []struct {
		name    string
		global  map[string]any
		top     map[string]any
		project bool
		ack     exttest.Ack
		want    []string // in the registrations
		never   []string // never in them
	}{
		{name: "deferred", global: map[string]any{"alpha": alpha, "beta": beta}, ack: newHost,
			want: []string{`"name":"mcp__alpha__echo"`, `"name":"mcp__beta__pid"`, `"output_schema"`, `"deferred":true`}},
		{name: "disabledTools", global: map[string]any{"alpha": alpha, "beta": mergeMap(beta, map[string]any{"disabledTools": []string{"pid"}})}, ack: newHost,
			want: []string{`"name":"mcp__beta__echo"`}, never: []string{"mcp__beta__pid"}},
		{name: "pending project server", global: map[string]any{"alpha": alpha}, project: true, ack: newHost,
			want: []string{`"name":"mcp__alpha__echo"`}, never: []string{"mcp__proj__", "mcp__beta__"}},
		{name: "approved project server", global: map[string]any{"alpha": alpha}, top: map[string]any{"trustProjectServers": true}, project: true, ack: newHost,
			want: []string{`"name":"mcp__proj__echo"`}},
		{name: "interactive, direct", global: map[string]any{"alpha": mergeMap(alpha, map[string]any{"interactiveTools": []string{"echo"}})},
			top: map[string]any{"toolExposure": "direct"}, ack: newHost, want: []string{`"interactive":true`}, never: []string{`"deferred":true,"interactive"`}},
		{name: "legacy host, deferred", global: map[string]any{"alpha": alpha, "beta": beta}, top: map[string]any{"toolExposure": "deferred"}, ack: legacyHost,
			want: []string{`"name":"mcp__beta__add"`}, never: []string{`"output_schema"`, `"interactive"`}},
		{name: "legacy host, proxy", global: map[string]any{"alpha": alpha, "beta": beta}, ack: legacyHost,
			want: []string{`"name":"mcp__call_tool"`}, never: []string{"mcp__alpha__"}},
		{name: "namespaces", global: map[string]any{"alpha": mergeMap(alpha, map[string]any{"instructions": "Prefer alpha."}), "beta": beta}, ack: newHost,
			want: []string{`"namespace":"alpha","namespace_description":"MCP server alpha: 13 tools (`, `. Alpha echoes.","namespace_instructions":"Prefer alpha."}`}},
		{name: "alwaysLoad, deferred", global: map[string]any{"alpha": mergeMap(alpha, map[string]any{"alwaysLoad": []string{"echo"}}), "beta": beta}, ack: newHost,
			want: []string{`"name":"mcp__alpha__echo"`, `"name":"mcp__alpha__add"`}, never: []string{`"name":"mcp__alpha__echo","description":"Echo the given text back. [read-only, open-world]","schema":{"properties":{"text":{"description":"text to echo","type":"string"}},"required":["text"],"type":"object"},"deferred"`}},
		{name: "alwaysLoad, proxy", global: map[string]any{"alpha": mergeMap(alpha, map[string]any{"alwaysLoad": true}), "beta": beta}, ack: legacyHost,
			want: []string{`"name":"mcp__call_tool"`, `"name":"mcp__alpha__echo"`}, never: []string{"mcp__beta__", `"namespace"`}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e.t = t
			e.write(tc.global, tc.top)
			if tc.project {
				e.writeProject(map[string]any{"proj": proj})
			} else if err := os.Remove(config.ProjectPath(e.project)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			// The file left by the previous case was made for another configuration.
			before, how := oneStart(t, e, tc.ack)
			if i > 0 && how == pathSent {
				t.Fatal("copied a sent section made for another configuration")
			}
			if err := cache.RemoveFrames(cache.FramesPath(cachePath)); err != nil {
				t.Fatal(err)
			}
			decoded, how := oneStart(t, e, tc.ack)
			if how != pathDecoded {
				t.Fatalf("start without a startup file: %s", how)
			}
			waitSent(t, cachePath)
			sent, how := oneStart(t, e, tc.ack)
			if how != pathSent {
				t.Fatalf("start with a sent section made for it: %s", how)
			}
			dropSent(t, cachePath)
			payloads, how := oneStart(t, e, tc.ack)
			if how != pathPayloads {
				t.Fatalf("start with payloads only: %s", how)
			}
			want := strings.Join(decoded, "\n")
			for path, got := range map[string][]string{"previous file": before, "sent section": sent, "payloads": payloads} {
				if strings.Join(got, "\n") != want {
					t.Fatalf("%s: registrations differ from the decoded cache's:\n%s\n\nwant:\n%s", path, strings.Join(got, "\n"), want)
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(want, w) {
					t.Errorf("registrations lack %s:\n%s", w, want)
				}
			}
			for _, n := range tc.never {
				if strings.Contains(want, n) {
					t.Errorf("registrations hold %s:\n%s", n, want)
				}
			}
			if !hasCommand(decoded) {
				t.Error("/mcp not registered")
			}
		})
	}
}

// TestSentSectionFollowsRawInputs: the sent section is copied only while every raw input
// of the config is what it was made from; a change to any of them (an environment
// variable the config reads, the config file's bytes, the approvals file) makes the start
// build its registrations instead, and they are the same. A section whose recorded state
// does not match the state loaded (an input the raw key missed) is dropped and reported.
func TestSentSectionFollowsRawInputs(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.env["MCPB_TOKEN"] = "one"
	alpha := mergeMap(e.server("-name", "alpha"), map[string]any{"env": map[string]any{"TOKEN": "${MCPB_TOKEN}"}})
	e.write(map[string]any{"alpha": alpha}, nil)
	pre := e.bridge(extension.GenNew)
	if _, errs := pre.Refresh(ctxGuard(t), []string{"alpha"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	cachePath := pre.opts.CachePath
	ack := exttest.Ack{Cwd: e.project, Capabilities: []string{"call_tool"}}
	prime := func() []string {
		t.Helper()
		if err := cache.RemoveFrames(cache.FramesPath(cachePath)); err != nil {
			t.Fatal(err)
		}
		want, _ := oneStart(t, e, ack)
		waitSent(t, cachePath)
		if got, how := oneStart(t, e, ack); how != pathSent || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("primed start: %s", how)
		}
		return want
	}
	changes := []struct {
		name           string
		change, revert func()
	}{
		{"environment variable", func() { e.env["MCPB_TOKEN"] = "two" }, func() { e.env["MCPB_TOKEN"] = "one" }},
		{"config file bytes", func() { e.write(map[string]any{"alpha": alpha}, map[string]any{"toolExposure": "auto"}) }, func() { e.write(map[string]any{"alpha": alpha}, nil) }},
		{"approvals file", func() {
			if err := os.WriteFile(pre.trustPath(), []byte(`{"version":1,"projects":{}}`), 0o600); err != nil {
				t.Fatal(err)
			}
		}, func() {
			if err := os.Remove(pre.trustPath()); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			want := prime()
			c.change()
			defer c.revert()
			got, how := oneStart(t, e, ack)
			if how == pathSent {
				t.Fatal("copied the sent section after the change")
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("registrations differ:\n%s\n\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}

	// A section recorded for another state: sent (the raw key matched), then reported
	// and dropped, so the next start builds its registrations.
	prime()
	stamp, err := cache.StampOf(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	path := cache.FramesPath(cachePath)
	sent, err := cache.ReadSent(path, stamp)
	if err != nil {
		t.Fatal(err)
	}
	servers, err := cache.ReadFrames(path, stamp)
	if err != nil {
		t.Fatal(err)
	}
	forged := &cache.Sent{Key: sent.Key, Meta: strings.Replace(sent.Meta, `"state":"`, `"state":"0`, 1), Frames: bytes.Clone(sent.Frames)}
	sent.Release()
	if err := cache.WriteStartup(path, stamp, forged, servers); err != nil {
		t.Fatal(err)
	}
	if _, how := oneStart(t, e, ack); how != pathSent {
		t.Fatalf("forged state: %s", how)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a sent section for another state was kept: %v", err)
	}
}

// TestStartAfterProtocolLearnedUsesPayloads: remembering a server's MCP revision
// (ProtocolLearned → cache.SetProtocol) rewrites the cache file under the startup file,
// but changes nothing a registration is made from: the next start builds its frames from
// the startup file's payloads instead of decoding the whole cache, and they are the ones
// a start that decodes the cache sends.
func TestStartAfterProtocolLearnedUsesPayloads(t *testing.T) {
	e := newTestEnv(t)
	e.write(map[string]any{"s": e.server("-name", "s")}, nil)
	c := config.Load(config.Options{ZotHome: e.home, ProjectDir: e.project, LookupEnv: e.lookup})
	srv, _ := c.Server("s")
	cachePath := cache.DefaultPath(e.home)
	if _, err := cache.Update(ctxGuard(t), cachePath, map[string]*cache.Server{"s": {Fingerprint: srv.Fingerprint(), Tools: []cache.Tool{
		{Name: "echo", Description: "Echoes.", InputSchema: []byte(`{"type":"object"}`)},
	}}}, nil, time.Now); err != nil {
		t.Fatal(err)
	}
	ack := exttest.Ack{Cwd: e.project, Capabilities: []string{"call_tool"}}
	decoded, how := oneStart(t, e, ack)
	if how != pathDecoded {
		t.Fatalf("first start: %s, want %s", how, pathDecoded)
	}
	waitSent(t, cachePath)
	b := e.bridge(extension.GenNew)
	bridgeHost{b}.ProtocolLearned(e.srv(b, "s"), "2025-06-18")
	b.Close(ctxGuard(t)) // waits for the write
	if f, err := cache.Read(cachePath); err != nil || f.Servers["s"].Protocol != "2025-06-18" {
		t.Fatalf("the revision was not written to the cache: %v", err)
	}
	frames, how := oneStart(t, e, ack)
	if how != pathPayloads {
		t.Fatalf("start after the revision was written: %s, want %s", how, pathPayloads)
	}
	if strings.Join(frames, "\n") != strings.Join(decoded, "\n") {
		t.Fatalf("registrations differ from the decoded cache's:\n%s\n\nwant:\n%s", strings.Join(frames, "\n"), strings.Join(decoded, "\n"))
	}
}
