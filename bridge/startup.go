package bridge

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/parallel"
	"github.com/zot-mcp/mcp-bridge/startup"
)

// usableConfigs lists the config of every server that may run, in name order: the servers
// whose tools are registered at startup.
func (b *Bridge) usableConfigs() []*config.Server {
	out := make([]*config.Server, 0, len(b.names))
	for _, name := range b.names {
		if b.runnable(name) {
			out = append(out, b.servers[name].Config())
		}
	}
	return out
}

// addTools adds the register_tool frame of every tool of the set to regs, its payload as
// the host takes it (toolPayload), in its server's namespace and deferred as asked unless
// look makes it visible (hostfeatures.go). A tool whose frame cannot be added is recorded
// in the set with the reason (Set.NotRegistered), so that the catalog never offers it to
// the model as a tool it could load. A large set's frames are built in pieces on
// GOMAXPROCS goroutines and each piece is handed to the writer once it and those before
// it are built: building the frames is most of a large start's work before ready, and
// the writer sends them meanwhile rather than a half of them after the last is built.
func (b *Bridge) addTools(regs *extension.Registrations, s *startup.Set, deferred bool, look *toolLook) {
	// Sized whole, namespace included: growing a buffer of every frame copies it.
	size := make([]int, len(s.Tools)+1) // size[i]: the bytes of the frames before tool i
	for i, t := range s.Tools {
		size[i+1] = size[i] + extension.PayloadFrameSize(len(t.Name), nil) + t.PayloadSize() + len(look.ns[t.Ref.Server])
	}
	total := size[len(s.Tools)]
	var failed []frameFailure
	if workers := runtime.GOMAXPROCS(0); total < parallelFramesFrom || workers == 1 {
		regs.Grow(total)
		failed = b.addToolRange(regs, s, 0, len(s.Tools), deferred, look)
	} else {
		n := (total + framePiece - 1) / framePiece
		from := make([]int, n+1) // piece k is the tools from[k] to from[k+1]
		for k := 1; k < n; k++ {
			from[k], _ = slices.BinarySearch(size, k*total/n)
		}
		from[n] = len(s.Tools)
		// Every piece gets the room of the largest, so that the buffer of any piece
		// written already fits whichever is built next (Registrations.Piece).
		room := 0
		for k := range n {
			room = max(room, size[from[k+1]]-size[from[k]])
		}
		pieces := make([]*extension.Registrations, n)
		failures := make([][]frameFailure, n)
		inPieces(n, workers, func(k int, stop <-chan struct{}) {
			pieces[k] = regs.Piece(k, room, stop)
			failures[k] = b.addToolRange(pieces[k], s, from[k], from[k+1], deferred, look)
		}, func(k int) {
			regs.Append(pieces[k])
			pieces[k] = nil
			failed = append(failed, failures[k]...)
		})
	}
	for _, f := range failed {
		b.opts.Log.Warn().Err(f.err).Str("server", f.ref.Server).Str("tool", f.ref.Tool).Msg("tool not registered")
		s.NotRegistered(f.ref, notRegisteredWhy(f.err))
	}
}

// inPieces runs build for every piece from 0 to n-1 on up to workers goroutines, and
// deliver on this one for each piece in order, as soon as its build ended. It returns
// only once every build ended, however they and deliver end: the builds read what the
// caller may release as soon as it returns (the set, whose tools may point into the
// startup file's mapping). The first panic of a build stops the rest (no piece is
// delivered after it; stop, which each build is given, closes) and is raised again here
// (Setup's caller turns it into an error).
func inPieces(n, workers int, build func(k int, stop <-chan struct{}), deliver func(k int)) {
	done := make([]chan struct{}, n)
	for k := range done {
		done[k] = make(chan struct{})
	}
	var (
		once     sync.Once
		halted   atomic.Bool
		panicked any
	)
	stop := make(chan struct{})
	halt := func(p any) {
		once.Do(func() {
			panicked = p
			halted.Store(true)
			close(stop)
		})
	}
	wait := parallel.Start(n, workers, func(k int) bool {
		return !halted.Load() && buildPiece(k, func(k int) { build(k, stop) }, done[k], halt)
	})
	defer wait()
	defer halt(nil) // a panic of deliver stops the builds too
	for k := range n {
		select {
		case <-done[k]:
		case <-stop:
		}
		if halted.Load() {
			break
		}
		deliver(k)
	}
	halt(nil)
	wait()
	if panicked != nil {
		panic(panicked)
	}
}

// buildPiece runs build(k) and closes done; false when it panicked, which it hands to
// halt.
func buildPiece(k int, build func(int), done chan struct{}, halt func(any)) (ok bool) {
	defer close(done)
	defer func() {
		if p := recover(); p != nil {
			halt(p)
		}
	}()
	build(k)
	return true
}

// parallelFramesFrom is the frame bytes from which addTools builds them in pieces on
// several goroutines: below it, starting them costs more than it saves.
const parallelFramesFrom = 4 << 20

// framePiece is about the frame bytes of one piece addTools builds on its own: small
// enough that the writer is seldom left waiting for the next, large enough that handing
// one over is rare.
const framePiece = 2 << 20

// frameFailure is a tool whose frame could not be added, and why.
type frameFailure struct {
	ref catalog.ToolRef
	err error
}

// addToolRange adds the frames of the set's tools from to to (addTools) and returns
// the tools whose frame could not be added. It reads the set and the bridge only, so
// two ranges may be built at once.
func (b *Bridge) addToolRange(regs *extension.Registrations, s *startup.Set, from, to int, deferred bool, look *toolLook) []frameFailure {
	var failed []frameFailure
	server, ns := "", extension.NamespaceFields(nil)
	var made []byte // the payload of a tool whose payload is made here, reused
	asMade := b.payloadsAsMade()
	for i := from; i < to; i++ {
		t := &s.Tools[i]
		if t.Ref.Server != server {
			server, ns = t.Ref.Server, look.ns[t.Ref.Server]
		}
		hidden := deferred && !look.isVisible(i)
		var err error
		if t.Payload == nil && asMade {
			// Made into the frame itself: no buffer of its own to copy it from.
			err = regs.AddMadeIn(t.Name, t.AppendPayload, ns, hidden, b.registeredInteractive(t.Ref))
		} else {
			payload := t.Payload
			if payload == nil {
				made = t.AppendPayload(made[:0])
				payload = made
			}
			p, interactive := b.toolPayload(t.Ref, payload)
			err = regs.AddPayloadIn(t.Name, p, ns, hidden, interactive)
		}
		if err != nil {
			failed = append(failed, frameFailure{ref: t.Ref, err: err})
		}
	}
	return failed
}

// fromListings builds the startup set from the cache file's listings, read by its lines
// without decoding it (cache.ReadListings): the start without a usable startup file. It
// reports false when the file is not laid out as the bridge writes it (or cannot be
// read): the caller then decodes it, from the listings' bytes when it was read (l is
// nil when it was not).
func (b *Bridge) fromListings() (l *cache.Listings, set *startup.Set, stale []string, ok bool) {
	l, err := cache.ReadListings(b.opts.CachePath)
	if err != nil {
		return l, nil, nil, false
	}
	set, stale, ok = startup.FromListings(l, b.usableConfigs(), b.projectKey, b.pins.pinsOf, b.cats.Namer())
	return l, set, stale, ok
}

// decodeCache decodes the cache file: the bytes of l when fromListings read them, else
// the file read now.
func (b *Bridge) decodeCache(l *cache.Listings) (*cache.File, error) {
	if l != nil {
		return l.Decode()
	}
	return cache.Read(b.opts.CachePath)
}

// notRegisteredWhy words why the host could not be told of a tool, for /mcp <server>.
func notRegisteredWhy(err error) string {
	var tooLarge *extension.FrameTooLargeError
	if errors.As(err, &tooLarge) {
		return fmt.Sprintf("its definition is %d bytes; the host reads at most %d for one tool", tooLarge.Size, tooLarge.Limit)
	}
	return "the host could not be told of it: " + err.Error()
}

// markUnregistered tells the catalog which tools of the startup set were not registered
// after all, when it was published before they were (a start that decoded the cache).
func (b *Bridge) markUnregistered() {
	if b.startup == nil || len(b.startup.Unregistered) == 0 || b.startup.Fast || b.cats.Loaded() == nil {
		return // none, or the catalog is built after ready with the set's marks
	}
	b.changeCatalog(catalog.Change{Unregistered: b.startup.Unregistered, PackLater: true})
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
	if b.opts.StageHook != nil {
		b.opts.StageHook("finish")
	}
	file, err := b.decoded, error(nil)
	listed := false
	switch {
	case file != nil:
	case b.listings != nil:
		file, err = b.listings.Decode()
		listed = true
	default:
		file, err = cache.Read(b.opts.CachePath)
	}
	b.decoded, b.listings = nil, nil
	if err != nil {
		b.cacheErr, b.cacheListed = err, listed
		b.catalogFromStartup()
		if listed {
			// The bytes registered from are damaged where the lines were not read: as
			// after a start that decoded them, every server is listed again, which
			// rewrites the cache (and what the lines did not give: annotations, when a
			// listing is due, the protocol and transport remembered).
			b.stale = nil
			for _, s := range b.usableConfigs() {
				b.stale = append(b.stale, s.Name)
			}
		}
		return
	}
	registered := b.startup.Registered()
	if b.startup.Sent {
		// The sent section's key covers everything the catalog is built from, so what
		// was sent is the whole catalog, but for the tools it names as left out.
		registered = nil
	}
	b.catalogFromFile(file, nil, registered, b.startup.Unregistered)
}

// catalogFromStartup publishes the catalog of the tools registered from the startup file,
// built from the file's own data, for when the cache cannot be decoded.
func (b *Bridge) catalogFromStartup() {
	b.cacheFallback = true
	if b.startup.Sent {
		b.boot.FillSent(b.startup)
	}
	tools := map[string][]cache.Tool{}
	for i, t := range b.startup.Tools {
		tools[t.Ref.Server] = append(tools[t.Ref.Server], startup.ToolFromPayload(t.Ref.Tool, b.startup.Payload(i)))
	}
	b.publishCatalog(tools, b.startup.Registered(), b.startup.Unregistered)
}

// register sends everything Setup registers, in one hand-off to the writer, unless the
// sent section went out already: the registrations built for the active mode, and /mcp.
// A panic while building costs the tools, never /mcp.
func (b *Bridge) register(s *extension.Session) error {
	if b.boot.Sent() {
		return nil
	}
	regs, err := b.registrations(s)
	if err != nil {
		return err
	}
	b.markUnregistered()
	return s.Register(regs)
}

// streamChunk is how many bytes of frames Setup builds before it hands them to the
// writer, which sends them while the rest is built.
const streamChunk = 1 << 20

// registrations builds what Setup registers for the startup set: the tools of the active
// mode and /mcp, handing the frames to s as they are built.
func (b *Bridge) registrations(s *extension.Session) (*extension.Registrations, error) {
	regs := &extension.Registrations{}
	regs.StreamTo(s, streamChunk)
	regErr := b.safely("registering the MCP tools", func() {
		if err := b.registerTools(regs, b.startup); err != nil {
			b.opts.Log.Warn().Err(err).Msg("tools not registered")
		}
	})
	if regErr != nil {
		b.setupErr = errors.Join(b.setupErr, regErr)
		regs = &extension.Registrations{}
	}
	if err := regs.AddCommand(commands.Name, commandDescription); err != nil {
		return nil, err
	}
	return regs, nil
}

// commandDescription describes /mcp in the host's command list, whose lines zot cuts at the
// terminal's edge: it fits an 80-column terminal beside the command's name.
const commandDescription = "MCP servers: status, start/stop, login, setup; /mcp help"

// bootHost is what the startup glue (startup.Boot) asks of the bridge.
type bootHost struct{ b *Bridge }

func (h bootHost) Env() startup.Env {
	o := &h.b.opts
	return startup.Env{CachePath: o.CachePath, ZotHome: o.ZotHome, TrustPath: h.b.trustPath(), LookupEnv: o.LookupEnv,
		Log: o.Log, SpareProcs: o.StartupGC}
}

func (h bootHost) Session() *extension.Session { return h.b.sess.Load() }

func (h bootHost) Generation() extension.Generation { return h.b.host.Generation() }

func (h bootHost) Servers() ([]*config.Server, []bool) {
	b := h.b
	cfgs, pending := make([]*config.Server, len(b.names)), make([]bool, len(b.names))
	for i, name := range b.names {
		cfgs[i], pending[i] = b.servers[name].Config(), b.servers[name].Pending()
	}
	return cfgs, pending
}

func (h bootHost) Usable() []*config.Server { return h.b.usableConfigs() }

func (h bootHost) Project() string { return h.b.projectKey }

func (h bootHost) Pins(server string) map[string]string { return h.b.pins.pinsOf(server) }

func (h bootHost) Mode() string { return string(h.b.mode) }

func (h bootHost) Namer() *catalog.Namer { return h.b.cats.Namer() }

// Registrations adds the active mode's tools and /mcp, as a fresh start registers them.
func (h bootHost) Registrations(regs *extension.Registrations, set *startup.Set) error {
	if err := h.b.registerTools(regs, set); err != nil {
		return err
	}
	return regs.AddCommand(commands.Name, commandDescription)
}
