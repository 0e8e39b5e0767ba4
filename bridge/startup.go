package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"runtime/debug"
	"sort"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// startupHeapLimit bounds the heap while pauseGC holds the collector off: past it the
// runtime collects as usual, so a huge catalog cannot run the process out of memory.
const startupHeapLimit = 512 << 20

// pauseGC turns the garbage collector off until the returned function runs. Setup
// allocates a few times the startup file's size in a fresh process whose heap target is
// tiny, so several collections would run inside the host's registration window and
// collect almost nothing: all of it is either kept or dropped right after ready.
func pauseGC() (restore func()) {
	pct := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(startupHeapLimit)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(pct)
	}
}

// startupTool is one tool to register at startup: its registered name and the
// pre-encoded rest of its register_tool frame (description and schema).
type startupTool struct {
	ref     ToolRef
	name    string
	payload []byte
}

// startupSet is what Setup registers: the tools of every usable server whose cache entry
// is fresh, in name order.
type startupSet struct {
	tools []startupTool
	fast  bool // read from the startup file rather than decoded from the cache
}

// registerPrefix is the start of every register_tool frame as extension.AppendToolFrame
// writes it for an empty name; what follows it is a tool's payload.
const registerPrefix = `{"type":"register_tool","name":"",`

// payloadFor encodes a tool's description and schema as they follow the name in its
// register_tool frame.
func payloadFor(server string, t *cache.Tool) []byte {
	frame := extension.AppendToolFrame(nil, extension.Tool{Description: Describe(server, t), Schema: t.InputSchema, OutputSchema: t.OutputSchema})
	if !bytes.HasPrefix(frame, []byte(registerPrefix)) {
		return nil
	}
	return frame[len(registerPrefix) : len(frame)-1]
}

// appendFrame builds the register_tool frame for a registered name (always [A-Za-z0-9_],
// so it needs no escaping) and a payload.
func appendFrame(dst []byte, name string, payload []byte, deferred bool) []byte {
	dst = append(dst, `{"type":"register_tool","name":"`...)
	dst = append(dst, name...)
	dst = append(dst, `",`...)
	dst = append(dst, payload...)
	if deferred {
		dst = append(dst, `,"deferred":true`...)
	}
	return append(dst, '}')
}

// loadStartup fills the startup set from the startup file when it was made from the
// current cache file, without decoding the cache. It reports false (and changes nothing)
// when the file is missing, damaged or stale; the caller then decodes the cache.
func (b *Bridge) loadStartup() bool {
	stamp, err := cache.StampOf(b.opts.CachePath)
	if err != nil {
		return false
	}
	framesPath := cache.FramesPath(b.opts.CachePath)
	servers, err := cache.ReadFrames(framesPath, stamp)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, cache.ErrFramesStale) {
			// Derived data: drop it so no later start trips over it; the tools are
			// registered from the cache and the file is rebuilt after ready.
			rmErr := cache.RemoveFrames(framesPath)
			b.opts.Log.Warn().Err(err).AnErr("remove", rmErr).Str("file", framesPath).Msg("damaged startup file discarded; registering from the tool cache and rebuilding it")
		}
		return false
	}
	var refs []ToolRef
	payloads := map[ToolRef][]byte{}
	var stale []string
	for _, name := range b.names {
		s := b.servers[name].cfg
		if !b.runnable(name) {
			continue
		}
		fs := servers[name]
		if fs == nil || fs.Fingerprint != s.Fingerprint() {
			stale = append(stale, name)
			continue
		}
		for _, t := range fs.Tools {
			if ok, _ := s.ToolAllowed(t.Name); !ok {
				continue
			}
			ref := ToolRef{Server: name, Tool: t.Name}
			refs = append(refs, ref)
			payloads[ref] = t.Payload
		}
	}
	names, _ := b.namer.Assign(refs)
	set := &startupSet{fast: true, tools: make([]startupTool, 0, len(refs))}
	for _, ref := range refs {
		set.tools = append(set.tools, startupTool{ref: ref, name: names[ref], payload: payloads[ref]})
	}
	sort.Slice(set.tools, func(i, j int) bool { return set.tools[i].name < set.tools[j].name })
	b.startup, b.stale = set, stale
	return true
}

// startupFromCatalog is the startup set of an already decoded catalog.
func startupFromCatalog(cat *catalog) *startupSet {
	set := &startupSet{tools: make([]startupTool, len(cat.entries))}
	for i := range cat.entries {
		e := &cat.entries[i]
		t := e.tool()
		set.tools[i] = startupTool{ref: e.ref(), name: e.Name, payload: payloadFor(e.Server, &t)}
	}
	return set
}

// frames encodes the register_tool frame of every tool of the set, its payload as the
// host takes it (hostPayload), each followed by '\n', into one buffer sized up front, so
// they go to the host in one write.
func (s *startupSet) frames(deferred bool, hostPayload func(ToolRef, []byte) []byte) []byte {
	payloads := make([][]byte, len(s.tools))
	n := 0
	for i, t := range s.tools {
		if t.payload != nil {
			payloads[i] = hostPayload(t.ref, t.payload)
			n += len(registerPrefix) + len(t.name) + len(payloads[i]) + len(`,"deferred":true}`) + 1
		}
	}
	buf := make([]byte, 0, n)
	for i, t := range s.tools {
		if t.payload != nil {
			buf = append(appendFrame(buf, t.name, payloads[i], deferred), '\n')
		}
	}
	return buf
}

// refs lists the set's tools.
func (s *startupSet) refs() []ToolRef {
	out := make([]ToolRef, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.ref
	}
	return out
}

// finishStartup decodes the full catalog after a fast startup, keeping the names and the
// registered marks of what was registered. The stale servers found from the startup file
// are the same (the file was made from this cache file).
//
// A cache that cannot be decoded now (unreadable, or damaged without changing its size and
// modification time) must not turn the tools the host already knows into "Unknown MCP
// tool": the catalog is then built from the startup file's own data (names, descriptions,
// schemas; annotations are not in it), and afterReady tells the user how to fix the cache.
func (b *Bridge) finishStartup() {
	if b.faultHook != nil {
		b.faultHook("finish")
	}
	file, err := cache.Read(b.opts.CachePath)
	if err != nil {
		b.cacheErr = err
		b.catalogFromStartup()
		return
	}
	b.catalogFromFile(file, nil, b.startupRefs())
}

// startupRefs marks the tools registered at startup.
func (b *Bridge) startupRefs() map[ToolRef]bool {
	registered := make(map[ToolRef]bool, len(b.startup.tools))
	for _, t := range b.startup.tools {
		registered[t.ref] = true
	}
	return registered
}

// catalogFromStartup publishes the catalog of the tools registered from the startup file,
// built from the file's own data, for when the cache cannot be decoded.
func (b *Bridge) catalogFromStartup() {
	b.cacheFallback = true
	tools := map[string][]cache.Tool{}
	for _, t := range b.startup.tools {
		tools[t.ref.Server] = append(tools[t.ref.Server], toolFromPayload(t.ref.Tool, t.payload))
	}
	b.publishCatalog(tools, b.startupRefs())
}

// toolFromPayload recovers what routing, search and validation need of a tool from its
// startup payload (see payloadFor).
func toolFromPayload(name string, payload []byte) cache.Tool {
	var p struct {
		Description string          `json:"description"`
		Schema      json.RawMessage `json:"schema"`
	}
	obj := make([]byte, 0, len(payload)+2)
	obj = append(append(append(obj, '{'), payload...), '}')
	_ = json.Unmarshal(obj, &p)
	return cache.Tool{Name: name, Description: p.Description, InputSchema: cache.NormalizeSchema(p.Schema)}
}

// writeStartup rewrites the startup file from the cache file as it is now. It gives up
// quietly if the cache changes while it reads (the next refresh writes it again).
func (b *Bridge) writeStartup() {
	before, err := cache.StampOf(b.opts.CachePath)
	if err != nil {
		return
	}
	file, err := cache.Read(b.opts.CachePath)
	if err != nil {
		return
	}
	if after, err := cache.StampOf(b.opts.CachePath); err != nil || after != before {
		return
	}
	servers := make(map[string]*cache.FrameServer, len(file.Servers))
	for name, e := range file.Servers {
		fs := &cache.FrameServer{Fingerprint: e.Fingerprint, Tools: make([]cache.FrameTool, 0, len(e.Tools))}
		for i := range e.Tools {
			if p := payloadFor(name, &e.Tools[i]); p != nil {
				fs.Tools = append(fs.Tools, cache.FrameTool{Name: e.Tools[i].Name, Payload: p})
			}
		}
		servers[name] = fs
	}
	if err := cache.WriteFrames(cache.FramesPath(b.opts.CachePath), before, servers); err != nil {
		b.opts.Log.Warn().Err(err).Msg("startup file not written")
	}
}
