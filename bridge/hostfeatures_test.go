package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/toolresult/spill"
)

// toolFrame is the part of a register_tool frame these tests read.
type toolFrame struct {
	Name                  string          `json:"name"`
	Deferred              bool            `json:"deferred"`
	OutputSchema          json.RawMessage `json:"output_schema"`
	Namespace             *string         `json:"namespace"`
	NamespaceDescription  *string         `json:"namespace_description"`
	NamespaceInstructions *string         `json:"namespace_instructions"`
}

// mcpToolFrames decodes the register_tool frames of MCP tools (mcp__<server>__<tool>) among
// frames, by name.
func mcpToolFrames(t *testing.T, frames []string) map[string]toolFrame {
	t.Helper()
	out := map[string]toolFrame{}
	for _, raw := range frames {
		var f struct {
			Type string `json:"type"`
			toolFrame
		}
		if err := json.Unmarshal([]byte(raw), &f); err != nil {
			t.Fatalf("frame %.200s: %v", raw, err)
		}
		if f.Type == "register_tool" && strings.Count(f.Name, "__") == 2 {
			out[f.Name] = f.toolFrame
		}
	}
	return out
}

var (
	newestZot   = func(e *testEnv) exttest.Ack { return exttest.Ack{Cwd: e.project, Capabilities: []string{"call_tool"}} }
	releasedZot = func(e *testEnv) exttest.Ack { return exttest.Ack{Cwd: e.project} }
)

// TestNamespacesOnNewestZot: on a host that announces capabilities every MCP tool is
// registered in its server's namespace, described by the server's directory line and its
// MCP instructions, with the user's instructions for it, and keeps its output schema; a
// host without capabilities (which ignores namespaces) gets none of these fields. The
// same holds whether the start decodes the cache or reads the startup file.
func TestNamespacesOnNewestZot(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{
		"alpha": mergeMap(e.server("-name", "alpha", "-instructions", "Alpha echoes.\n\nAsk it for  sums."), map[string]any{"instructions": "  Prefer alpha for arithmetic.  "}),
		"beta":  e.server("-name", "beta"),
	}, map[string]any{"toolExposure": "deferred"})
	pre := e.bridge(extension.GenNew)
	if _, errs := pre.Refresh(ctxGuard(t), []string{"alpha", "beta"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, tc := range []struct {
		name   string
		ack    exttest.Ack
		newest bool
	}{
		{"newest zot", newestZot(e), true},
		{"released zot", releasedZot(e), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, _, _ := startSessionAck(t, e, tc.ack, nil)
			frames := mcpToolFrames(t, raw)
			if len(frames) < 2*13 {
				t.Fatalf("%d MCP tools registered", len(frames))
			}
			for name, f := range frames {
				server := strings.Split(name, "__")[1]
				if !tc.newest {
					if f.Namespace != nil || f.NamespaceDescription != nil || f.NamespaceInstructions != nil || f.OutputSchema != nil {
						t.Errorf("%s: namespace or output schema sent to a host that ignores them", name)
					}
					continue
				}
				if f.Namespace == nil || *f.Namespace != server {
					t.Errorf("%s: namespace %v, want %q", name, f.Namespace, server)
				}
				wantDesc := "MCP server " + server + ": 13 tools ("
				if f.NamespaceDescription == nil || !strings.HasPrefix(*f.NamespaceDescription, wantDesc) {
					t.Errorf("%s: namespace_description %v, want it to start %q", name, f.NamespaceDescription, wantDesc)
				}
				switch server {
				case "alpha":
					if f.NamespaceDescription == nil || !strings.HasSuffix(*f.NamespaceDescription, ". Alpha echoes. Ask it for sums.") {
						t.Errorf("%s: namespace_description %v lacks the server's instructions on one line", name, f.NamespaceDescription)
					}
					if f.NamespaceInstructions == nil || *f.NamespaceInstructions != "Prefer alpha for arithmetic." {
						t.Errorf("%s: namespace_instructions %v, want the user's", name, f.NamespaceInstructions)
					}
				case "beta":
					if f.NamespaceInstructions != nil {
						t.Errorf("%s: namespace_instructions %q without any configured", name, *f.NamespaceInstructions)
					}
				}
			}
			if add := frames["mcp__alpha__add"]; tc.newest && add.OutputSchema == nil {
				t.Error("mcp__alpha__add lost its output schema")
			}
		})
	}
}

// TestAlwaysLoadVisibleFromTheStart: the tools "alwaysLoad" names are registered visible
// (not deferred) on the newest zot, every other tool deferred; on the released zot (proxy
// mode) they are registered by name beside the search and call tools, no other MCP tool
// is, and a call by that name works.
func TestAlwaysLoadVisibleFromTheStart(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{
		"alpha": mergeMap(e.server("-name", "alpha"), map[string]any{"alwaysLoad": []string{"echo", "a*"}}),
		"beta":  e.server("-name", "beta"),
	}, nil)
	pre := e.bridge(extension.GenNew)
	if _, errs := pre.Refresh(ctxGuard(t), []string{"alpha", "beta"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	visible := map[string]bool{"mcp__alpha__echo": true, "mcp__alpha__add": true, "mcp__alpha__audio": true}

	raw, _, _ := startSessionAck(t, e, newestZot(e), nil)
	frames := mcpToolFrames(t, raw)
	if len(frames) < 2*13 {
		t.Fatalf("%d MCP tools registered on the newest zot", len(frames))
	}
	for name, f := range frames {
		if f.Deferred == visible[name] {
			t.Errorf("newest zot: %s deferred=%v, want %v", name, f.Deferred, !visible[name])
		}
	}

	raw, h, _ := startSessionAck(t, e, releasedZot(e), nil)
	frames = mcpToolFrames(t, raw)
	if len(frames) != len(visible) {
		t.Errorf("released zot: MCP tools registered %v, want only %v", frames, visible)
	}
	for name, f := range frames {
		if !visible[name] || f.Deferred {
			t.Errorf("released zot: %s registered (deferred=%v)", name, f.Deferred)
		}
	}
	if !strings.Contains(strings.Join(raw, "\n"), `"name":"mcp__call_tool"`) {
		t.Error("released zot: mcp__call_tool not registered")
	}
	r, err := h.CallTool(ctxGuard(t), "1", "mcp__alpha__echo", map[string]any{"text": "no search needed"})
	if err != nil || r.IsError || r.Text() != "no search needed" {
		t.Fatalf("call by name on the released zot: %+v, %v", r, err)
	}
}

// TestAlwaysLoadBudget: alwaysLoad on a server with many tools makes visible only what
// fits AlwaysLoadBudget, in name order; the rest stay deferred, and AlwaysLoadUse (what
// doctor reports) says so, counting the tools the host got visible.
func TestAlwaysLoadBudget(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"many": mergeMap(e.server("-name", "many", "-tools", "300"), map[string]any{"alwaysLoad": true})}, nil)
	pre := e.bridge(extension.GenNew)
	if _, errs := pre.Refresh(ctxGuard(t), []string{"many"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	var first *Bridge
	raw, _, _ := startSessionAck(t, e, newestZot(e), func(b *Bridge) { first = b })
	frames := mcpToolFrames(t, raw)
	shown, bytes := 0, 0
	for _, line := range raw {
		var f toolFrame
		if json.Unmarshal([]byte(line), &f) == nil && strings.HasPrefix(f.Name, "mcp__many__") && !f.Deferred {
			shown++
			bytes += len(line) + 1
		}
	}
	if shown == 0 || shown == len(frames) || bytes > AlwaysLoadBudget {
		t.Fatalf("%d of %d tools visible in %d bytes, want some but not all, within %d", shown, len(frames), bytes, AlwaysLoadBudget)
	}
	use := e.bridge(extension.GenNew).AlwaysLoadUse()
	if use.Tools != shown || use.Bytes > use.Budget || use.Budget != AlwaysLoadBudget || use.Tools+len(use.Over) != len(frames) {
		t.Fatalf("AlwaysLoadUse %+v (%d over), want %d tools within %d bytes and the other %d over", use, len(use.Over), shown, AlwaysLoadBudget, len(frames)-shown)
	}
	for _, name := range use.Over {
		if f, ok := frames[name]; !ok || !f.Deferred {
			t.Errorf("%s is reported over the budget but was registered visible", name)
		}
	}
	// Without the startup file the payloads are made as the frames are built, but for the
	// budget's: the same frames.
	framesPath := cache.FramesPath(pre.opts.CachePath)
	// The first start writes what it sent into the startup file after ready: removed
	// before that, the file would be back for the second start.
	awaitAfterReady(t, first)
	waitFile(t, framesPath)
	if err := os.Remove(framesPath); err != nil {
		t.Fatal(err)
	}
	again, _, logs := startSessionAck(t, e, newestZot(e), nil)
	if !strings.Contains(logs.String(), "registering from the tool cache's listings") {
		t.Fatalf("did not register from the cache's lines: %s", logs.String())
	}
	if strings.Join(again, "\n") != strings.Join(raw, "\n") {
		t.Fatal("the start from the cache's lines registered other frames than the start from the startup file")
	}
}

// TestCutResultIsSavedWhole: a result over the text budget is cut for the model, and the
// marker names a private file under ZOT_HOME that holds the whole result.
func TestCutResultIsSavedWhole(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"alpha": e.server("-name", "alpha")}, nil)
	b := e.bridge(extension.GenNew)
	const n = 300 << 10
	r := b.CallByName(ctxGuard(t), "alpha", "big", json.RawMessage(`{"bytes":307200}`))
	text := textOf(t, r)
	_, rest, ok := strings.Cut(text, "the whole text is saved in ")
	path, _, _ := strings.Cut(rest, ": read what is missing")
	if r.IsError || !ok || filepath.Dir(path) != filepath.Join(e.home, spill.DirName) {
		t.Fatalf("marker names no file under %s: %.300s", filepath.Join(e.home, spill.DirName), text[max(0, len(text)-400):])
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) != n || strings.Trim(string(data), "x") != "" {
		t.Fatalf("%s holds %d bytes (%v), want the whole %d", path, len(data), err, n)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("%s: mode %v, %v; want 0600", path, st.Mode().Perm(), err)
	}
}
