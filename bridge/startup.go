package bridge

import (
	"errors"
	"io/fs"
	"runtime"
	"runtime/debug"
	"sort"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// startupHeapLimit bounds the heap while startupRuntime holds the collector off: past it the
// runtime collects as usual, so a huge catalog cannot run the process out of memory.
const startupHeapLimit = 512 << 20

// startupRuntime turns the garbage collector off until the returned function runs. Setup
// allocates a few times the startup file's size in a fresh process whose heap target is
// tiny, so several collections would run inside the host's registration window and
// collect almost nothing: all of it is either kept or dropped right after ready.
func startupRuntime() (restore func()) {
	pct := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(startupHeapLimit)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(pct)
	}
}

// spareProcsFrom is the size of a sent section worth two more Ps while it is written.
const spareProcsFrom = 1 << 20

// spareProcs adds two Ps until ready (afterReady restores them) when a large sent section
// is being written while Setup loads the config. Stdin is a blocking pipe, so the reader
// waiting on it holds a P in a system call until the runtime's monitor takes it back,
// which in a process that has been idle can take milliseconds: without a spare P the
// writer would wait for the config to be loaded instead of sending meanwhile. Changing
// GOMAXPROCS stops the world, which costs more than it saves for a small section.
func (b *Bridge) spareProcs(size int) {
	if b.opts.StartupGC && size >= spareProcsFrom {
		b.procs = runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 2)
	}
}

// startupTool is one tool to register at startup: its registered name and the
// pre-encoded rest of its register_tool frame (description and schema).
type startupTool struct {
	ref     ToolRef
	name    string
	payload extension.ToolPayload
}

// startupSet is what Setup registers: the tools of every usable server whose cache entry
// is fresh, in name order.
type startupSet struct {
	tools []startupTool
	fast  bool // read from the startup file rather than decoded from the cache
	// sent: the registrations were copied from the startup file's sent section, so tools
	// is empty (startupTools fills it when it is needed after all).
	sent bool
}

// payloadFor encodes a tool's description and schema as they follow the name in its
// register_tool frame.
func payloadFor(server string, t *cache.Tool) extension.ToolPayload {
	return extension.EncodeToolPayload(extension.Tool{Description: Describe(server, t), Schema: t.InputSchema, OutputSchema: t.OutputSchema})
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
		b.discardDamaged(err)
		return false
	}
	set, stale, ok := b.startupSetFrom(servers, b.namer)
	if !ok {
		b.discardDamaged(errors.New("startup file: a payload is not a run of JSON members"))
		return false
	}
	set.fast = true
	b.startup, b.stale = set, stale
	return true
}

// discardDamaged removes the startup file when err says it is damaged (not missing, not
// stale): it is derived data, so no later start should trip over it; the tools are
// registered from the cache and the file is rebuilt after ready.
func (b *Bridge) discardDamaged(err error) {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, cache.ErrFramesStale) || errors.Is(err, cache.ErrNoSent) {
		return
	}
	framesPath := cache.FramesPath(b.opts.CachePath)
	rmErr := cache.RemoveFrames(framesPath)
	b.opts.Log.Warn().Err(err).AnErr("remove", rmErr).Str("file", framesPath).Msg("damaged startup file discarded; registering from the tool cache and rebuilding it")
}

// startupSetFrom is the startup set of the startup file's payloads, named through namer:
// every tool of each usable server whose entry has the server's fingerprint and that its
// config does not hide, in name order. stale lists the usable servers without such an
// entry. ok is false when a payload is damaged.
func (b *Bridge) startupSetFrom(servers map[string]*cache.FrameServer, namer *Namer) (set *startupSet, stale []string, ok bool) {
	var refs []ToolRef
	payloads := map[ToolRef]extension.ToolPayload{}
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
			if allowed, _ := s.ToolAllowed(t.Name); !allowed {
				continue
			}
			ref := ToolRef{Server: name, Tool: t.Name}
			if _, dup := payloads[ref]; dup {
				continue
			}
			p := extension.ToolPayload(t.Payload)
			if !p.Valid() {
				return nil, nil, false
			}
			refs = append(refs, ref)
			payloads[ref] = p
		}
	}
	names, _ := namer.Assign(refs)
	set = &startupSet{tools: make([]startupTool, 0, len(refs))}
	for _, ref := range refs {
		set.tools = append(set.tools, startupTool{ref: ref, name: names[ref], payload: payloads[ref]})
	}
	sort.Slice(set.tools, func(i, j int) bool { return set.tools[i].name < set.tools[j].name })
	return set, stale, true
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

// addTools adds the register_tool frame of every tool of the set to regs, its payload as
// the host takes it (toolPayload), deferred as asked.
func (b *Bridge) addTools(regs *extension.Registrations, s *startupSet, deferred bool) {
	n := 0
	for _, t := range s.tools {
		n += extension.PayloadFrameSize(len(t.name), t.payload)
	}
	regs.Grow(n)
	for _, t := range s.tools {
		p, interactive := b.toolPayload(t.ref, t.payload)
		if err := regs.AddPayload(t.name, p, deferred, interactive); err != nil {
			b.opts.Log.Warn().Err(err).Str("server", t.ref.Server).Str("tool", t.ref.Tool).Msg("tool not registered")
		}
	}
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
	registered := b.startupRefs()
	if b.startup.sent {
		// The sent section's key covers everything the catalog is built from, so what
		// was sent is the whole catalog.
		registered = nil
	}
	b.catalogFromFile(file, nil, registered)
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
	if b.startup.sent {
		b.startupTools()
	}
	tools := map[string][]cache.Tool{}
	for _, t := range b.startup.tools {
		tools[t.ref.Server] = append(tools[t.ref.Server], toolFromPayload(t.ref.Tool, t.payload))
	}
	b.publishCatalog(tools, b.startupRefs())
}

// toolFromPayload recovers what routing, search and validation need of a tool from its
// startup payload (see payloadFor).
func toolFromPayload(name string, payload extension.ToolPayload) cache.Tool {
	t, _ := payload.Decode()
	return cache.Tool{Name: name, Description: t.Description, InputSchema: cache.NormalizeSchema(t.Schema)}
}

// writeStartup rewrites the startup file from the cache file as it is now: every server's
// payloads and, in a host session, the registrations a start with this configuration and
// this host sends, under their key. It gives up quietly if the cache changes while it
// reads (the next refresh writes it again).
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
			fs.Tools = append(fs.Tools, cache.FrameTool{Name: e.Tools[i].Name, Payload: payloadFor(name, &e.Tools[i])})
		}
		servers[name] = fs
	}
	if err := cache.WriteStartup(cache.FramesPath(b.opts.CachePath), before, b.sentSection(before, servers), servers); err != nil {
		b.opts.Log.Warn().Err(err).Msg("startup file not written")
	}
}
