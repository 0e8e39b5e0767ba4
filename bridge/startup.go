package bridge

import (
	"errors"
	"io/fs"
	"runtime"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/startup"
)

// usableConfigs lists the config of every server that may run, in name order: the servers
// whose tools are registered at startup.
func (b *Bridge) usableConfigs() []*config.Server {
	out := make([]*config.Server, 0, len(b.names))
	for _, name := range b.names {
		if b.runnable(name) {
			out = append(out, b.servers[name].cfg)
		}
	}
	return out
}

// spareProcs adds two Ps until ready (afterReady restores them) when a large sent section
// is being written while Setup loads the config. Stdin is a blocking pipe, so the reader
// waiting on it holds a P in a system call until the runtime's monitor takes it back,
// which in a process that has been idle can take milliseconds: without a spare P the
// writer would wait for the config to be loaded instead of sending meanwhile. Changing
// GOMAXPROCS stops the world, which costs more than it saves for a small section.
func (b *Bridge) spareProcs(size int) {
	if b.opts.StartupGC && size >= startup.SpareProcsFrom {
		b.procs = runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 2)
	}
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
	set, stale, ok := startup.SetFrom(servers, b.usableConfigs(), b.cats.Namer())
	if !ok {
		b.discardDamaged(errors.New("startup file: a payload is not a run of JSON members"))
		return false
	}
	set.Fast = true
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

// addTools adds the register_tool frame of every tool of the set to regs, its payload as
// the host takes it (toolPayload), deferred as asked.
func (b *Bridge) addTools(regs *extension.Registrations, s *startup.Set, deferred bool) {
	n := 0
	for _, t := range s.Tools {
		n += extension.PayloadFrameSize(len(t.Name), t.Payload)
	}
	regs.Grow(n)
	for _, t := range s.Tools {
		p, interactive := b.toolPayload(t.Ref, t.Payload)
		if err := regs.AddPayload(t.Name, p, deferred, interactive); err != nil {
			b.opts.Log.Warn().Err(err).Str("server", t.Ref.Server).Str("tool", t.Ref.Tool).Msg("tool not registered")
		}
	}
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
	registered := b.startup.Registered()
	if b.startup.Sent {
		// The sent section's key covers everything the catalog is built from, so what
		// was sent is the whole catalog.
		registered = nil
	}
	b.catalogFromFile(file, nil, registered)
}

// catalogFromStartup publishes the catalog of the tools registered from the startup file,
// built from the file's own data, for when the cache cannot be decoded.
func (b *Bridge) catalogFromStartup() {
	b.cacheFallback = true
	if b.startup.Sent {
		b.startupTools()
	}
	tools := map[string][]cache.Tool{}
	for _, t := range b.startup.Tools {
		tools[t.Ref.Server] = append(tools[t.Ref.Server], startup.ToolFromPayload(t.Ref.Tool, t.Payload))
	}
	b.publishCatalog(tools, b.startup.Registered())
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
	servers := startup.Payloads(file)
	if err := cache.WriteStartup(cache.FramesPath(b.opts.CachePath), before, b.sentSection(before, servers), servers); err != nil {
		b.opts.Log.Warn().Err(err).Msg("startup file not written")
	}
}
