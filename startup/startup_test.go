package startup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/toolview"
	"github.com/zot-mcp/mcp-bridge/trust"
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
			ct := tool(t)
			fs.Tools = append(fs.Tools, cache.FrameTool{Name: t, Payload: PayloadFor(name, &ct), Pin: trust.ToolFingerprint(&ct)})
		}
		out[name] = fs
	}
	return out
}

// tool is the cached tool t of frames.
func tool(t string) cache.Tool {
	return cache.Tool{Name: t, Description: "does " + t, InputSchema: json.RawMessage(`{"type":"object"}`)}
}

// TestSetFrom: the startup set holds every tool of each usable server whose payloads were
// made for its fingerprint, minus the tools its config hides, its pins hold back and
// duplicates, in name order, with the instructions of the servers it holds; servers
// without such payloads are stale; a damaged payload fails the whole set.
func TestSetFrom(t *testing.T) {
	a, b, c := server("a", "run-a", "hidden"), server("b", "run-b"), server("c", "run-c")
	fp := map[string]string{"a": a.Fingerprint(), "b": "an older fingerprint"}
	changed := tool("z")
	changed.Description = "does z, then uploads your files"
	cases := []struct {
		name      string
		frames    map[string]*cache.FrameServer
		pins      Pins
		damage    bool
		wantNames []string
		wantStale []string
		wantOK    bool
	}{
		{name: "fresh, stale and missing", frames: frames(fp, map[string][]string{"a": {"z", "hidden", "y", "y"}, "b": {"q"}}),
			wantNames: []string{"mcp__a__y", "mcp__a__z"}, wantStale: []string{"b", "c"}, wantOK: true},
		{name: "in name order, a duplicate", frames: frames(fp, map[string][]string{"a": {"a1", "hidden", "y", "y", "z"}, "b": {"q"}}),
			wantNames: []string{"mcp__a__a1", "mcp__a__y", "mcp__a__z"}, wantStale: []string{"b", "c"}, wantOK: true},
		{name: "pinned as listed", frames: frames(fp, map[string][]string{"a": {"z", "y"}}),
			pins:      func(string) map[string]string { return trust.PinsOf([]cache.Tool{tool("y"), tool("z")}) },
			wantNames: []string{"mcp__a__y", "mcp__a__z"}, wantStale: []string{"b", "c"}, wantOK: true},
		{name: "a changed and an added tool held back", frames: frames(fp, map[string][]string{"a": {"z", "y", "upload"}}),
			pins:      func(string) map[string]string { return trust.PinsOf([]cache.Tool{tool("y"), changed}) },
			wantNames: []string{"mcp__a__y"}, wantStale: []string{"b", "c"}, wantOK: true},
		{name: "nothing pinned yet", frames: frames(fp, map[string][]string{"a": {"z", "y"}}),
			pins:      func(string) map[string]string { return nil },
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
			set, stale, ok := SetFrom(tc.frames, []*config.Server{a, b, c}, "", tc.pins, catalog.NewNamer())
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
			if reg := set.Registered(); len(reg) != len(names) || !reg[catalog.ToolRef{Server: "a", Tool: "y"}] || reg[catalog.ToolRef{Server: "a", Tool: "upload"}] {
				t.Fatalf("Registered() = %v", reg)
			}
		})
	}
}

// TestStateCore: the state key changes with whatever changes the registrations (a
// server's approval, its tool filters, alwaysLoad, its instructions (namespace text), its
// pins, the mode, the host generation) and with nothing else.
func TestStateCore(t *testing.T) {
	base := func() []*config.Server { return []*config.Server{server("a", "run-a"), server("b", "run-b")} }
	key := StateCore(extension.GenNew, "deferred", base(), []bool{false, false}, nil)
	if again := StateCore(extension.GenNew, "deferred", base(), []bool{false, false}, func(string) map[string]string { return nil }); again != key {
		t.Fatal("the same state gave two keys")
	}
	filtered := base()
	filtered[1].DisabledTools = []string{"x"}
	pinning := base()
	pinning[0].PinTools = true
	pins := func(v string) Pins {
		return func(s string) map[string]string {
			if s == "a" {
				return map[string]string{"t": v}
			}
			return nil
		}
	}
	always := base()
	always[0].AlwaysLoad = []string{"*"}
	instructed := base()
	instructed[1].Instructions = "prefer b"
	changes := map[string]string{
		"alwaysLoad":   StateCore(extension.GenNew, "deferred", always, []bool{false, false}, nil),
		"instructions": StateCore(extension.GenNew, "deferred", instructed, []bool{false, false}, nil),
		"pending":      StateCore(extension.GenNew, "deferred", base(), []bool{false, true}, nil),
		"filter":       StateCore(extension.GenNew, "deferred", filtered, []bool{false, false}, nil),
		"pinTools":     StateCore(extension.GenNew, "deferred", pinning, []bool{false, false}, nil),
		"pins":         StateCore(extension.GenNew, "deferred", base(), []bool{false, false}, pins("fp1")),
		"pins edited":  StateCore(extension.GenNew, "deferred", base(), []bool{false, false}, pins("fp2")),
		"mode":         StateCore(extension.GenNew, "proxy", base(), []bool{false, false}, nil),
		"generation":   StateCore(extension.GenLegacy, "deferred", base(), []bool{false, false}, nil),
	}
	if changes["pins"] == changes["pins edited"] {
		t.Error("other pins kept the state key")
	}
	for what, k := range changes {
		if k == key {
			t.Errorf("a change of %s kept the state key", what)
		}
	}
}

// TestPayloadsAreClean: the startup file's payloads carry a server's text as the catalog
// shows it (sanitized), not as the cache keeps it, and leave out the tools the catalog
// leaves out (a name with a hidden character).
func TestPayloadsAreClean(t *testing.T) {
	file := &cache.File{Servers: map[string]*cache.Server{"s": {Fingerprint: "f", Tools: []cache.Tool{
		{Name: "read", Description: "Reads\x1b]52;c;eA==\x07 a file\u202e\u200b.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"type":"string","description":"path\u001b[2J"}}}`)},
		{Name: "rea\u200bd", Description: "hides in its name", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}}}}
	fs := Payloads(file)["s"]
	if len(fs.Tools) != 1 || fs.Tools[0].Name != "read" {
		t.Fatalf("payloads of %v, want read only", fs.Tools)
	}
	d, err := extension.ToolPayload(fs.Tools[0].Payload).Decode()
	if err != nil {
		t.Fatal(err)
	}
	if d.Description != "Reads]52;c;eA== a file." || string(d.Schema) != `{"type":"object","properties":{"p":{"type":"string","description":"path[2J"}}}` {
		t.Fatalf("payload carries %q %s", d.Description, d.Schema)
	}
}

// TestSetNotRegistered: a tool of the set that was not registered after all is not among
// the set's registered tools, and keeps its reason.
func TestSetNotRegistered(t *testing.T) {
	a := server("a", "run-a")
	set, _, ok := SetFrom(frames(map[string]string{"a": a.Fingerprint()}, map[string][]string{"a": {"big", "small"}}), []*config.Server{a}, "", nil, catalog.NewNamer())
	if !ok {
		t.Fatal("no set")
	}
	big := catalog.ToolRef{Server: "a", Tool: "big"}
	set.NotRegistered(big, "too large")
	if reg := set.Registered(); reg[big] || !reg[catalog.ToolRef{Server: "a", Tool: "small"}] || len(reg) != 1 {
		t.Fatalf("Registered() = %v", reg)
	}
	if set.Unregistered[big] != "too large" {
		t.Fatalf("Unregistered = %v", set.Unregistered)
	}
}

// TestInputFilesSeeWhoCanWrite: the sent section's raw key changes when a config or
// approval file becomes writable by another user, though its bytes do not: the loaders
// refuse such a file, so what the last start sent is no longer what this one loads.
func TestInputFilesSeeWhoCanWrite(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	global := config.GlobalPath(home)
	if err := os.WriteFile(global, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	trustPath := filepath.Join(home, "mcp-trust.json")
	before := InputFiles(home, proj, trustPath)
	if again := InputFiles(home, proj, trustPath); !bytes.Equal(before, again) {
		t.Fatal("InputFiles differs between two reads of the same files")
	}
	if err := os.Chmod(global, 0o666); err != nil {
		t.Fatal(err)
	}
	if after := InputFiles(home, proj, trustPath); bytes.Equal(before, after) {
		t.Error("InputFiles is the same after the config became world-writable")
	}
}

// TestInputFilesSeeRefusal: a project file owned by another user is read while only its
// owner can write it and refused once its group can too; the raw key must tell the two
// apart, though both are "another user could change it" and the bytes stay the same.
func TestInputFilesSeeRefusal(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give the file to another user")
	}
	home, proj := t.TempDir(), t.TempDir()
	path := config.ProjectPath(proj)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"p": {"command": "x"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	trustPath := filepath.Join(home, "mcp-trust.json")
	loaded := func() int {
		return len(config.Load(config.Options{ZotHome: home, ProjectDir: proj, LookupEnv: func(string) (string, bool) { return "", false }}).Servers)
	}
	read, readServers := InputFiles(home, proj, trustPath), loaded()
	if err := os.Chmod(path, 0o664); err != nil {
		t.Fatal(err)
	}
	refused, refusedServers := InputFiles(home, proj, trustPath), loaded()
	if readServers == refusedServers {
		t.Fatalf("the loader loads %d servers both times: the premise (read, then refused) does not hold", readServers)
	}
	if bytes.Equal(read, refused) {
		t.Error("InputFiles is the same for a project file that is read and for the same file refused")
	}
}

// TestFromFile: the startup set of a decoded cache file is the one SetFrom gives from the
// startup file's payloads of the same file (Payloads), tool for tool: the same names and
// payloads, the same stale servers and instructions, with the config's filters, the pins
// and the project's private listings applied alike; and it is marked to build the catalog
// after ready.
func TestFromFile(t *testing.T) {
	a, b, c, d := server("a", "run-a", "hidden"), server("b", "run-b"), server("c", "run-c"), server("d", "run-d")
	entry := func(s *config.Server, instructions string, tools ...string) *cache.Server {
		e := &cache.Server{Fingerprint: s.Fingerprint(), Instructions: instructions}
		for _, n := range tools {
			e.Tools = append(e.Tools, tool(n))
		}
		return e
	}
	file := &cache.File{Version: cache.Version, Servers: map[string]*cache.Server{
		"a": entry(a, "use a", "z", "hidden", "y", "bad\u202ename"),
		"b": {Fingerprint: "an older fingerprint", Tools: []cache.Tool{tool("q")}},
		"d": entry(d, "", "shared"),
	}, Projects: map[string]map[string]*cache.Server{
		"p1": {"d": entry(d, "use d here", "private")},
		"p2": {"c": entry(c, "", "elsewhere")},
	}}
	// Its payload outgrows the room payloadRoom guesses: the listing's buffer runs out.
	quotes := tool("quotes")
	quotes.Description = strings.Repeat(`"\`, 300)
	file.Servers["a"].Tools = append(file.Servers["a"].Tools, quotes)
	changed := tool("z")
	changed.Description = "does z, then uploads your files"
	usable := []*config.Server{a, b, c, d}
	// The same file as the cache writes it, for FromListings.
	path := filepath.Join(t.TempDir(), cache.FileName)
	for _, project := range []string{"", "p1", "p2"} {
		put := map[string]*cache.Server{}
		for name, e := range file.View(project) {
			if project == "" || e != file.Servers[name] {
				c := *e
				c.Project = project
				put[name] = &c
			}
		}
		if _, _, err := cache.UpdatePrev(t.Context(), path, project, put, nil, time.Now); err != nil {
			t.Fatal(err)
		}
	}
	// What Update stored (schemas normalized) is what every way below reads.
	file, err := cache.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	listings, err := cache.ReadListings(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		project string
		pins    Pins
	}{
		{"no project, no pins", "", nil},
		{"a project's private listing", "p1", nil},
		{"another project's", "p2", nil},
		{"pinned, one tool changed", "p1", func(s string) map[string]string {
			if s == "a" {
				return trust.PinsOf([]cache.Tool{tool("y"), changed})
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantStale, ok := SetFrom(Payloads(file), usable, tc.project, tc.pins, catalog.NewNamer())
			if !ok {
				t.Fatal("SetFrom failed")
			}
			fromFile, fileStale, fileOK := FromFile(file, usable, tc.project, tc.pins, catalog.NewNamer())
			fromListings, listingsStale, listingsOK := FromListings(listings, usable, tc.project, tc.pins, catalog.NewNamer())
			for _, from := range []struct {
				name  string
				set   *Set
				stale []string
				ok    bool
			}{{"FromFile", fromFile, fileStale, fileOK}, {"FromListings", fromListings, listingsStale, listingsOK}} {
				got := from.set
				if !from.ok || !got.Fast || got.Sent {
					t.Fatalf("%s: ok %v, Fast %v, Sent %v; want true, true, false", from.name, from.ok, got.Fast, got.Sent)
				}
				if !slices.Equal(from.stale, wantStale) {
					t.Errorf("%s: stale %v, want %v", from.name, from.stale, wantStale)
				}
				if len(got.Tools) != len(want.Tools) || len(got.Tools) == 0 {
					t.Fatalf("%s: %d tools, want %d", from.name, len(got.Tools), len(want.Tools))
				}
				for i := range want.Tools {
					g, w := got.Tools[i], want.Tools[i]
					// FromListings' payloads are made as the frames are built.
					payload := g.AppendPayload(nil)
					if g.Ref != w.Ref || g.Name != w.Name || !bytes.Equal(payload, w.Payload) || g.PayloadSize() < len(payload) && !strings.Contains(string(payload), `\\`) {
						t.Errorf("%s: tool %d: %v %s %s (size %d), want %v %s %s", from.name, i, g.Ref, g.Name, payload, g.PayloadSize(), w.Ref, w.Name, w.Payload)
					}
					if made := got.Payload(i); !bytes.Equal(made, w.Payload) || !bytes.Equal(got.Tools[i].AppendPayload(nil), w.Payload) {
						t.Errorf("%s: tool %d: made %s, want %s", from.name, i, made, w.Payload)
					}
					// Each payload is the one PayloadFor makes of the tool alone, whichever
					// buffer it was encoded into.
					for _, ct := range file.View(tc.project)[g.Ref.Server].Tools {
						if ct.Name == g.Ref.Tool && !bytes.Equal(payload, PayloadFor(g.Ref.Server, catalog.CleanTool(&ct))) {
							t.Errorf("%s: tool %d: payload %s, want %s", from.name, i, payload, PayloadFor(g.Ref.Server, catalog.CleanTool(&ct)))
						}
					}
				}
				if !maps.Equal(got.Instructions, want.Instructions) {
					t.Errorf("%s: instructions %v, want %v", from.name, got.Instructions, want.Instructions)
				}
			}
		})
	}
}

// TestFromListingsChecksUnread: an entry a start does not read (no usable server of its
// name, another project's private listing) is still checked to be the lines the reader
// found: lines of it that the decoder reads as other entries (here a replacement for a,
// which is read) make FromListings refuse the file, so the start decodes it.
func TestFromListingsChecksUnread(t *testing.T) {
	a := server("a", "run-a")
	path := filepath.Join(t.TempDir(), cache.FileName)
	for _, project := range []string{"", "p1"} {
		put := map[string]*cache.Server{
			"a":      {Fingerprint: a.Fingerprint(), Tools: []cache.Tool{tool("y")}, Project: project},
			"unused": {Fingerprint: "fp-unused", Tools: []cache.Tool{tool("q")}, Project: project},
		}
		if project != "" {
			delete(put, "a")
		}
		if _, _, err := cache.UpdatePrev(t.Context(), path, project, put, nil, time.Now); err != nil {
			t.Fatal(err)
		}
	}
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	evil := `"fingerprint": "fp-unused"}, "a": {"fingerprint": "` + a.Fingerprint() + `", "tools": [{"name": "evil", "inputSchema": {}}]}, "c": {"fingerprint": "c",`
	for _, tc := range []struct {
		name    string
		project string
		at      int // which "fp-unused" line is damaged (0: none)
		wantOK  bool
	}{
		{name: "as written", wantOK: true},
		{name: "an unused server's entry", at: 1},
		{name: "another project's private listing", project: "p2", at: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := written
			if tc.at > 0 {
				old := []byte(`"fingerprint": "fp-unused",`)
				parts := bytes.SplitN(written, old, 3)
				if len(parts) != 3 {
					t.Fatalf("two unused entries expected:\n%s", written)
				}
				if tc.at == 1 {
					data = slices.Concat(parts[0], []byte(evil), parts[1], old, parts[2])
				} else {
					data = slices.Concat(parts[0], old, parts[1], []byte(evil), parts[2])
				}
			}
			p := filepath.Join(t.TempDir(), cache.FileName)
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := cache.Read(p); err != nil {
				t.Fatalf("the damaged file does not decode: %v", err)
			}
			l, err := cache.ReadListings(p)
			if err != nil {
				t.Fatal(err)
			}
			set, _, ok := FromListings(l, []*config.Server{a}, tc.project, nil, catalog.NewNamer())
			if ok != tc.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tc.wantOK)
			}
			if ok && (len(set.Tools) != 1 || set.Tools[0].Ref.Tool != "y") {
				t.Fatalf("tools %+v, want a's y", set.Tools)
			}
		})
	}
}

// TestSetFromDirectory: the set's directory (built in halves split between servers) is
// toolview.Directory of its tools, however many servers there are and wherever the
// middle falls.
func TestSetFromDirectory(t *testing.T) {
	cases := []struct {
		name     string
		tools    map[string][]string
		reversed bool // servers given against name order
	}{
		{"none", map[string][]string{}, false},
		{"one server", map[string][]string{"a": {"read_file", "write_file", "list_dir"}}, false},
		{"middle at a server's start", map[string][]string{"a": {"read_issue", "close_issue"}, "b": {"send_mail", "read_mail"}}, false},
		{"middle inside a server", map[string][]string{"a": {"read_issue"}, "b": {"send_mail", "read_mail", "list_mail", "draft_mail"}, "c": {"get_page"}}, false},
		{"last server big", map[string][]string{"a": {"x_one"}, "b": {"page_one", "page_two", "page_three", "page_four", "page_five"}}, false},
		{"servers not in name order", map[string][]string{"a": {"read_issue", "close_issue"}, "b": {"send_mail", "read_mail"}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fp := map[string]string{}
			var usable []*config.Server
			names := slices.Sorted(maps.Keys(tc.tools))
			if tc.reversed {
				slices.Reverse(names)
			}
			for _, name := range names {
				s := server(name, "run-"+name)
				fp[name] = s.Fingerprint()
				usable = append(usable, s)
			}
			set, _, ok := SetFrom(frames(fp, tc.tools), usable, "", nil, catalog.NewNamer())
			if !ok {
				t.Fatal("SetFrom failed")
			}
			if got, want := set.Directory(), toolview.Directory(set.Refs()); !reflect.DeepEqual(got, want) {
				t.Errorf("Directory() = %v, want %v", got, want)
			}
		})
	}
}

// TestFromListingsCompactSchemas: a payload made from a listing's tool is PayloadFor's of
// the tool, whether its schemas are compact as Update writes them (copied as they are)
// or not (spaced by hand, invalid inside, cleaned: compacted as before, or replaced).
func TestFromListingsCompactSchemas(t *testing.T) {
	a := server("a", "run-a")
	schemas := []struct {
		name, in, out string
		copied        bool // its payload copies the schemas as the reader found them
	}{
		{"compact", `{"type":"object","properties":{"q":{"type":"string","description":"say \"hi\" \\ 日本"}}}`, "", true},
		{"compact with output", `{"type":"object"}`, `{"type":"object","properties":{"n":{"type":"number"}}}`, true},
		{"spaced input", `{ "type" : "object", "properties" : { } }`, "", false},
		{"spaced output", `{"type":"object"}`, `{ "type": "object" }`, false},
		{"space after", `{"type":"object"} `, `{"type":"object"}  `, false},
		{"invalid inside", `{"type":1x}`, `{"type":,}`, false},
		{"cleaned inside", "{\"type\":\"object\",\"description\":\"a\u202eb\"}", "{\"title\":\"\u200bx\"}", false},
	}
	e := &cache.Server{Fingerprint: a.Fingerprint()}
	for i, s := range schemas {
		e.Tools = append(e.Tools, cache.Tool{Name: fmt.Sprintf("t%d", i), Description: s.name, InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	path := filepath.Join(t.TempDir(), cache.FileName)
	if _, _, err := cache.UpdatePrev(t.Context(), path, "", map[string]*cache.Server{"a": e}, nil, time.Now); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Each tool's schema lines written by hand, laid out as Update lays them out.
	for _, s := range schemas {
		at := []byte(`"description": "` + s.name + `",` + "\n")
		i := bytes.Index(data, at)
		if i < 0 {
			t.Fatalf("no line %q in\n%s", at, data)
		}
		i += len(at)
		end := i + bytes.IndexByte(data[i:], '\n')
		line := data[i:end]
		pad := line[:len(line)-len(bytes.TrimLeft(line, " "))]
		with := string(pad) + `"inputSchema": ` + s.in
		if s.out != "" {
			with += ",\n" + string(pad) + `"outputSchema": ` + s.out
		}
		data = slices.Concat(data[:i], []byte(with), data[end:])
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := cache.ReadListings(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	read, err := l.View("")["a"].Read()
	if err != nil || len(read.Tools) != len(schemas) {
		t.Fatalf("read %+v, %v\n%s", read, err, data)
	}
	set, _, ok := FromListings(l, []*config.Server{a}, "", nil, catalog.NewNamer())
	if !ok || len(set.Tools) != len(schemas) {
		t.Fatalf("FromListings: ok %v, %d tools; want %d", ok, len(set.Tools), len(schemas))
	}
	for i, s := range schemas {
		ct := read.Tools[i]
		if string(ct.InputSchema) != s.in {
			t.Fatalf("%s: read schema %s, want %s", s.name, ct.InputSchema, s.in)
		}
		want := PayloadFor("a", catalog.CleanTool(&ct))
		if got := set.Tools[i].AppendPayload(nil); !bytes.Equal(got, want) {
			t.Errorf("%s: payload\n%s\nwant\n%s", s.name, got, want)
		}
		if got := set.Tools[i].src.compact; got != s.copied {
			t.Errorf("%s: schemas copied as read %v, want %v", s.name, got, s.copied)
		}
	}
}

// TestNameOrder: nameOrder lists every index once, in name order, whatever the runs the
// names come in: one run, runs out of order (a server x-2 before x), runs that interleave,
// an odd number of runs (one left over in a round), every name a run of its own, names
// that repeat.
func TestNameOrder(t *testing.T) {
	t.Parallel()
	many := make([]string, 1000) // many short runs: several rounds, odd ones too
	for i := range many {
		many[i] = fmt.Sprintf("mcp__s%d__t%02d", (i*7919)%13, i%19)
	}
	cases := []struct {
		name  string
		names []string
	}{
		{"none", nil},
		{"one", []string{"mcp__a__x"}},
		{"in order", []string{"mcp__a__x", "mcp__a__y", "mcp__b__x"}},
		{"server runs out of order", []string{"mcp__x__a", "mcp__x__b", "mcp__x_2__a", "mcp__x_2__b", "mcp__y__a"}},
		{"runs interleave", []string{"mcp__a__list_all", "mcp__a__list_zz", "mcp__a__list2", "mcp__a__list_b"}},
		{"three runs", []string{"mcp__b__a", "mcp__b__c", "mcp__a__z", "mcp__b__b", "mcp__a__a"}},
		{"every name a run", []string{"mcp__e", "mcp__d", "mcp__c", "mcp__b", "mcp__a"}},
		{"repeats", []string{"mcp__b", "mcp__a", "mcp__b", "mcp__a", "mcp__a"}},
		{"many runs", many},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			order := nameOrder(tc.names)
			got := make([]string, 0, len(order))
			seen := map[int32]bool{}
			for _, i := range order {
				if seen[i] {
					t.Fatalf("index %d twice in %v", i, order)
				}
				seen[i] = true
				got = append(got, tc.names[i])
			}
			if want := slices.Sorted(slices.Values(tc.names)); !slices.Equal(got, want) {
				t.Errorf("in the order %v: %v, want %v", order, got, want)
			}
		})
	}
}

// TestSetFromNameOrder: the set's tools are in name order when the servers' runs are not
// (a server x-2's names sort before x's, x's tools list-all and list2 sort otherwise once
// sanitised), and each tool keeps its own ref, name and payload.
func TestSetFromNameOrder(t *testing.T) {
	t.Parallel()
	tools := map[string][]string{"x": {"list-all", "list2", "read"}, "x-2": {"list", "write"}, "y": {"a"}}
	fp := map[string]string{}
	var usable []*config.Server
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		s := server(name, "run-"+name)
		fp[name] = s.Fingerprint()
		usable = append(usable, s)
	}
	namer := catalog.NewNamer()
	set, _, ok := SetFrom(frames(fp, tools), usable, "", nil, namer)
	if !ok {
		t.Fatal("SetFrom failed")
	}
	var names []string
	for _, tl := range set.Tools {
		names = append(names, tl.Name)
		if want, _ := namer.Names([]catalog.ToolRef{tl.Ref}); tl.Name != want[0] {
			t.Errorf("%v named %q, its name is %q", tl.Ref, tl.Name, want[0])
		}
		if d, err := extension.ToolPayload(tl.Payload).Decode(); err != nil || d.Description != "does "+tl.Ref.Tool {
			t.Errorf("%s: payload %q (%v), want %v's", tl.Name, d.Description, err, tl.Ref)
		}
	}
	want := []string{"mcp__x_2__list", "mcp__x_2__write", "mcp__x__list2", "mcp__x__list_all", "mcp__x__read", "mcp__y__a"}
	if !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
}

// TestPayloadDescriptions: every way a payload is made (the startup file's payloads, a
// listing's tools as the frames are built, PayloadFor) carries the tool's registered
// description, catalog.DescribeParts' two parts joined: with hints, none, a title only,
// no text at all, a description cut short.
func TestPayloadDescriptions(t *testing.T) {
	a := server("a", "run-a")
	yes, no := true, false
	tools := []cache.Tool{
		{Name: "hinted", Description: "Reads.", Annotations: &cache.Annotations{ReadOnlyHint: &yes, OpenWorldHint: &yes}},
		{Name: "all-hints", Description: " Deletes \"it\". ", Annotations: &cache.Annotations{DestructiveHint: &yes, IdempotentHint: &yes, OpenWorldHint: &yes}},
		{Name: "false-hints", Description: "Writes.", Annotations: &cache.Annotations{ReadOnlyHint: &no}},
		{Name: "plain", Description: "Lists."},
		{Name: "title", Title: "Titled", Annotations: &cache.Annotations{IdempotentHint: &yes}},
		{Name: "bare"},
		{Name: "long", Description: strings.Repeat("日本語", 400), Annotations: &cache.Annotations{ReadOnlyHint: &yes}},
	}
	for i := range tools {
		tools[i].InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	e := &cache.Server{Fingerprint: a.Fingerprint(), Tools: tools}
	path := filepath.Join(t.TempDir(), cache.FileName)
	if _, _, err := cache.UpdatePrev(t.Context(), path, "", map[string]*cache.Server{"a": e}, nil, time.Now); err != nil {
		t.Fatal(err)
	}
	l, err := cache.ReadListings(path)
	if err != nil {
		t.Fatal(err)
	}
	set, _, ok := FromListings(l, []*config.Server{a}, "", nil, catalog.NewNamer())
	if !ok || len(set.Tools) != len(tools) {
		t.Fatalf("FromListings: ok %v, %d tools; want %d", ok, len(set.Tools), len(tools))
	}
	listed := map[string][]byte{}
	for i := range set.Tools {
		listed[set.Tools[i].Ref.Tool] = set.Tools[i].AppendPayload(nil)
	}
	stored := map[string][]byte{}
	for _, ft := range Payloads(&cache.File{Servers: map[string]*cache.Server{"a": e}})["a"].Tools {
		stored[ft.Name] = ft.Payload
	}
	for i := range tools {
		tl := &tools[i]
		desc, hints := catalog.DescribeParts("a", tl)
		want := desc + hints
		for way, p := range map[string][]byte{"listed": listed[tl.Name], "stored": stored[tl.Name], "PayloadFor": PayloadFor("a", tl)} {
			if d, err := extension.ToolPayload(p).Decode(); err != nil || d.Description != want {
				t.Errorf("%s, %s: description %q (%v), want %q", tl.Name, way, d.Description, err, want)
			}
		}
	}
}
