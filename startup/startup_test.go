package startup

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// server is a usable stdio server named name running command.
func server(name, command string, disabled ...string) *config.Server {
	s := &config.Server{Name: name, Enabled: true, Transport: config.Transport("stdio"), DisabledTools: disabled}
	s.Raw.Command = command
	return s
}

// frames is the startup file's payload section for servers, each tool's payload made
// by PayloadFor.
func frames(fingerprints map[string]string, tools map[string][]string) map[string]*cache.FrameServer {
	out := map[string]*cache.FrameServer{}
	for name, ts := range tools {
		fs := &cache.FrameServer{Fingerprint: fingerprints[name]}
		for _, t := range ts {
			ct := cache.Tool{Name: t, Description: "does " + t, InputSchema: json.RawMessage(`{"type":"object"}`)}
			fs.Tools = append(fs.Tools, cache.FrameTool{Name: t, Payload: PayloadFor(name, &ct)})
		}
		out[name] = fs
	}
	return out
}

// TestSetFrom: the startup set holds every tool of each usable server whose payloads were
// made for its fingerprint, minus the tools its config hides and duplicates, in name
// order, with the instructions of the servers it holds; servers without such payloads are
// stale; a damaged payload fails the whole set.
func TestSetFrom(t *testing.T) {
	a, b, c := server("a", "run-a", "hidden"), server("b", "run-b"), server("c", "run-c")
	fp := map[string]string{"a": a.Fingerprint(), "b": "an older fingerprint"}
	cases := []struct {
		name      string
		frames    map[string]*cache.FrameServer
		damage    bool
		wantNames []string
		wantStale []string
		wantOK    bool
	}{
		{name: "fresh, stale and missing", frames: frames(fp, map[string][]string{"a": {"z", "hidden", "y", "y"}, "b": {"q"}}),
			wantNames: []string{"mcp__a__y", "mcp__a__z"}, wantStale: []string{"b", "c"}, wantOK: true},
		{name: "damaged payload", frames: frames(fp, map[string][]string{"a": {"z"}}), damage: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.damage {
				tc.frames["a"].Tools[0].Payload = []byte("\"description\":\"line\nbreak\"")
			}
			tc.frames["a"].Instructions = "use a"
			if fb := tc.frames["b"]; fb != nil {
				fb.Instructions = "use b"
			}
			set, stale, ok := SetFrom(tc.frames, []*config.Server{a, b, c}, catalog.NewNamer())
			if ok != tc.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tc.wantOK)
			}
			if !ok {
				return
			}
			var names []string
			for _, tl := range set.Tools {
				names = append(names, tl.Name)
				if d, err := extension.ToolPayload(tl.Payload).Decode(); err != nil || d.Description != "does "+tl.Ref.Tool {
					t.Errorf("%s: payload %q (%v)", tl.Name, d.Description, err)
				}
			}
			if !slices.Equal(names, tc.wantNames) || !slices.Equal(stale, tc.wantStale) {
				t.Fatalf("names %v stale %v; want %v and %v", names, stale, tc.wantNames, tc.wantStale)
			}
			// A stale server's instructions are not the ones its tools will have.
			if len(set.Instructions) != 1 || set.Instructions["a"] != "use a" {
				t.Errorf("Instructions = %v, want a's only", set.Instructions)
			}
			if reg := set.Registered(); len(reg) != len(names) || !reg[catalog.ToolRef{Server: "a", Tool: "y"}] {
				t.Fatalf("Registered() = %v", reg)
			}
		})
	}
}

// TestStateCore: the state key changes with whatever changes the registrations (a
// server's approval, its tool filters, alwaysLoad, its instructions (namespace text), the
// mode, the host generation) and with nothing else.
func TestStateCore(t *testing.T) {
	base := func() []*config.Server { return []*config.Server{server("a", "run-a"), server("b", "run-b")} }
	key := StateCore(extension.GenNew, "deferred", base(), []bool{false, false})
	if again := StateCore(extension.GenNew, "deferred", base(), []bool{false, false}); again != key {
		t.Fatal("the same state gave two keys")
	}
	filtered := base()
	filtered[1].DisabledTools = []string{"x"}
	always := base()
	always[0].AlwaysLoad = []string{"*"}
	instructed := base()
	instructed[1].Instructions = "prefer b"
	changes := map[string]string{
		"pending":      StateCore(extension.GenNew, "deferred", base(), []bool{false, true}),
		"filter":       StateCore(extension.GenNew, "deferred", filtered, []bool{false, false}),
		"alwaysLoad":   StateCore(extension.GenNew, "deferred", always, []bool{false, false}),
		"instructions": StateCore(extension.GenNew, "deferred", instructed, []bool{false, false}),
		"mode":         StateCore(extension.GenNew, "proxy", base(), []bool{false, false}),
		"generation":   StateCore(extension.GenLegacy, "deferred", base(), []bool{false, false}),
	}
	for what, k := range changes {
		if k == key {
			t.Errorf("a change of %s kept the state key", what)
		}
	}
}
