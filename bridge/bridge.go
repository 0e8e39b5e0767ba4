// Package bridge connects the host protocol (package extension) to MCP servers: it owns
// loading and registering at startup, routing of tool calls, the search and proxy tools,
// and the /mcp command's glue; it is the host of every server's state machine
// (lifecycle.Server, through lifecycle.Host). The tool catalog (catalog),
// the startup set (startup), result conversion (toolresult), the tools' wording for the
// model (toolview) and what servers offer beyond tools (extras) are packages of their own.
package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/remote"
	"github.com/zot-mcp/mcp-bridge/resources"
	"github.com/zot-mcp/mcp-bridge/search"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/startup"
	"github.com/zot-mcp/mcp-bridge/toolresult/spill"
	"github.com/zot-mcp/mcp-bridge/trust"
)

// Tool names the bridge registers besides the MCP tools.
const (
	SearchToolName = "mcp__search_tools"
	CallToolName   = "mcp__call_tool"
)

// ExtensionName is the extension's one name in zot: the manifest's "name", the folder
// ./install creates under $ZOT_HOME/extensions, and the name in hello. zot v0.1.62 finds
// `zot ext logs` by the manifest name but `disable`, `enable` and `remove` by the folder,
// so the two must agree for every command to work.
const ExtensionName = "mcp-bridge"

// hostToolDeadline is what the host gives one tool call; we answer a little before it so
// the model reads our explanation rather than the host's generic timeout.
const (
	hostToolDeadline = 60 * time.Second
	callBudget       = hostToolDeadline - 5*time.Second
)

// saveWait bounds how long a refresh waits for the cache's and the approval store's locks
// to save what it listed (the caller's context bounds only the listing).
const saveWait = 30 * time.Second

// Mode is how MCP tools are exposed to the model.
type Mode string

// Exposure modes.
const (
	ModeDeferred Mode = "deferred" // search tool + every tool registered deferred (NEW hosts)
	ModeProxy    Mode = "proxy"    // search tool + one generic call tool (hosts without deferred tools)
	ModeDirect   Mode = "direct"   // every tool registered eagerly (small setups)
)

// Options configure a Bridge. Zero values mean the production defaults.
type Options struct {
	Version    string // reported to MCP servers in initialize ("" = ClientVersion)
	ZotHome    string // state dir holding mcp.json and the cache ("" = computed like zot)
	CachePath  string // "" = <ZotHome>/mcp-tools-cache.json
	LookupEnv  func(string) (string, bool)
	Clock      clock.Clock
	Log        zerolog.Logger
	Supervisor []string // argv prefix that runs the supervise helper; empty = spawn directly
	// CallBudget bounds one tool call including a cold start (default 55 s: an answer
	// before the host's 60 s deadline).
	CallBudget time.Duration
	// Resolver resolves HTTP servers' host names (nil: the system resolver); tests use one
	// that fails every lookup so nothing leaves the machine.
	Resolver *net.Resolver
	// MaxReplyBytes bounds one message from a server, stdio or HTTP (default DefaultMaxReply); a
	// larger reply fails its call instead of taking the memory.
	MaxReplyBytes int
	// TrustPath is the store of approved project servers ("" = <ZotHome>/mcp-trust.json).
	TrustPath string
	// Surface is where the user reads messages (default: inside zot); package commands
	// words them.
	Surface commands.Surface
	// Notify receives notes when no host session is attached (the CLI prints them);
	// nil drops them.
	Notify func(level, msg string)
	// Connect, when set, opens every server's MCP sessions instead of its configured
	// transport: tests and benchmarks give in-process sessions (session.OpenInProcess).
	Connect lifecycle.ConnectFunc
	// Sampler is a front end that can ask its own client's model (serve): the sampling
	// handler of the named server, which then advertises sampling and has its requests
	// answered by it (lifecycle.Host.Sampler); nil, or a nil handler: sampling is refused,
	// as in zot.
	Sampler func(server string) client.SamplingHandler
	// StartupGC lets Setup switch the garbage collector off while it loads and registers
	// (up to a heap of startupHeapLimit) and add two Ps while it writes a large startup
	// file (spareProcs). The settings are process-wide, so only a process that runs one
	// bridge (the extension's main) may set it.
	StartupGC bool
	// Front is a second front end's side of the servers (serve); nil in zot and the CLI.
	Front Front
	// Mode, when set, is the exposure mode whatever the config and the host say: a
	// front end that shows the search and call tools sets ModeProxy.
	Mode Mode
	// OAuthHooks replace OAuth's outside effects (the browser opener); the zero value is
	// the platform's.
	OAuthHooks remote.OAuthHooks
	// StageHook, when set, runs at the start of a startup stage ("load": Setup's loading,
	// "tables": building the search tables after ready, "finish": decoding the cache after
	// a fast start, "index": building the search index in the background): fault tests
	// make it panic.
	StageHook func(stage string)
	// PrepareSearch builds the search tables after ready; nil is search.Prepare. Tests
	// replace it to see when it runs.
	PrepareSearch func()
}

// Bridge is the extension's handler.
type Bridge struct {
	opts Options

	projectDir string
	// projectKey is trust.ProjectKey of projectDir: the project whose private listings
	// this session may use and writes (cache.File.View).
	projectKey string
	host       extension.HostInfo
	cfg        *config.Config
	mode       Mode
	modeWhy    string
	servers    map[string]*lifecycle.Server
	// remotes are the HTTP side of every server (its logins, the transport that worked
	// last), the connector of an HTTP server's sessions (connector); remote is what
	// they share (the OAuth store).
	remotes map[string]*remote.Server
	remote  *remote.Deps
	names   []string // server names, sorted
	deps    *lifecycle.Deps

	cats    *catalog.Owner // the tool catalog and the names pinned for the process
	startup *startup.Set   // set when Setup registered from the startup file
	// decoded is the cache file a start without a usable startup file decoded before
	// ready, which the catalog is built from after ready (finishStartup); nil otherwise.
	decoded *cache.File
	// listings is the cache file a start without a usable startup file read by its lines
	// instead (cache.ReadListings), decoded after ready (finishStartup); nil otherwise.
	listings *cache.Listings
	// The startup glue: the sent section, the startup file, the raw inputs loaded.
	boot     *startup.Boot
	setupErr error // a panic recovered in Setup, reported after ready
	cacheErr error
	// cacheFallback: the cache could not be decoded after a fast start, so the catalog was
	// built from the startup file's own data (the registered tools keep working).
	cacheFallback bool
	// cacheListed: with cacheFallback, the tools registered at startup were read from the
	// cache by its lines (listings) whose decode failed, so no startup file backs them.
	cacheListed bool
	stale       []string // usable servers whose cache entry is missing or stale

	sess  atomic.Pointer[extension.Session]
	bgCtx context.Context
	stop  context.CancelFunc
	bg    sync.WaitGroup
	// bgMu orders every start of background work with Close's wait for it (closing): a
	// WaitGroup must not gain work while it is waited on.
	bgMu    sync.Mutex
	closing bool
	// afterReadyDone is closed when the work after ready (afterReady, or giving it up
	// because the bridge stopped first) is over: tests that stop a bridge right after a
	// start wait on it, or the stop could win and the startup file would not be written.
	afterReadyDone chan struct{}

	// refreshing counts refreshes in progress (search tells "still being fetched" only
	// while one runs).
	refreshing atomic.Int32

	listMu      sync.Mutex
	listPending map[string]bool

	validator catalog.Validator

	// pins are the pinned tools of approved project servers and of global servers with
	// "pinTools": true (pins.go).
	pins pinBook

	// x is what the bridge handles beyond tools (mcpx.go).
	x *mcpx

	// elicits are the servers' open questions to the user (elicit.go).
	elicits interact.Asker

	// spill keeps the whole text of results cut for the model (hostfeatures.go).
	spill *spill.Dir
}

// New returns a bridge; call Load (or let Setup do it) before use.
func New(opts Options) *Bridge {
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	if opts.Clock == nil {
		opts.Clock = clock.System{}
	}
	if opts.ZotHome == "" {
		home, _ := os.UserHomeDir()
		opts.ZotHome = config.ZotHome(opts.LookupEnv, runtime.GOOS, home)
	}
	if opts.CallBudget <= 0 {
		opts.CallBudget = callBudget
	}
	if opts.MaxReplyBytes <= 0 {
		n, err := session.MaxReplyFrom(opts.LookupEnv)
		if err != nil {
			opts.Log.Warn().Msg(err.Error())
		}
		opts.MaxReplyBytes = n
	}
	if opts.CachePath == "" {
		opts.CachePath = cache.DefaultPath(opts.ZotHome)
	}
	if opts.PrepareSearch == nil {
		opts.PrepareSearch = search.Prepare
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Bridge{opts: opts, bgCtx: ctx, stop: cancel, afterReadyDone: make(chan struct{}), listPending: map[string]bool{},
		cats: catalog.NewOwner(opts.Log)}
	// The packed tool bodies go beside the cache (whose disk holds their source already),
	// off the heap of an idle bridge.
	b.cats.KeepBodiesIn(filepath.Dir(opts.CachePath))
	b.boot = startup.NewBoot(bootHost{b})
	b.x = newMCPX(b)
	b.spill = spill.New(opts.ZotHome, opts.Clock)
	return b
}

// Load reads the config and the cache for projectDir and builds the catalog. It reads two
// or three local files and spawns nothing. gen is the host generation (for the mode).
func (b *Bridge) Load(projectDir string, gen extension.Generation) {
	b.loadConfig(projectDir, gen)
	b.loadCatalog(nil)
}

// loadConfig reads the config files and creates one Server per entry.
func (b *Bridge) loadConfig(projectDir string, gen extension.Generation) {
	b.projectDir = projectDir
	b.projectKey = trust.ProjectKey(projectDir)
	files := b.boot.InputFiles(projectDir)
	var env []string
	lookup := func(k string) (string, bool) {
		env = append(env, k)
		return b.opts.LookupEnv(k)
	}
	b.cfg = config.Load(config.Options{ZotHome: b.opts.ZotHome, ProjectDir: projectDir, LookupEnv: lookup})
	b.warnUnsafeFiles()
	b.mode, b.modeWhy = chooseMode(b.cfg, gen)
	if b.opts.Mode != "" {
		b.mode, b.modeWhy = b.opts.Mode, "the front end serves the search and call tools"
	}
	b.remote = &remote.Deps{Log: b.opts.Log, Clock: b.opts.Clock, Resolver: b.opts.Resolver, OAuth: remote.NewOAuth(b.opts.ZotHome, b.opts.OAuthHooks),
		Cmd: b.opts.Surface.Cmd, ClientName: lifecycle.ClientName, MaxReply: b.opts.MaxReplyBytes}
	b.remote.OAuth.Browser, _ = b.opts.LookupEnv("BROWSER")
	b.deps = &lifecycle.Deps{Clock: b.opts.Clock, Log: b.opts.Log, ProjectDir: projectDir,
		OnListChanged: b.listChanged, Surface: b.opts.Surface, Host: bridgeHost{b}, Connector: b.connector}
	b.deps.Version = cmp.Or(b.opts.Version, lifecycle.ClientVersion)
	b.servers = make(map[string]*lifecycle.Server, len(b.cfg.Servers))
	b.remotes = make(map[string]*remote.Server, len(b.cfg.Servers))
	b.names = b.names[:0]
	for i := range b.cfg.Servers {
		s := &b.cfg.Servers[i]
		b.remotes[s.Name] = remote.NewServer(s, b.remote)
		b.servers[s.Name] = lifecycle.New(s, b.deps)
		b.names = append(b.names, s.Name)
	}
	sort.Strings(b.names)
	b.loadTrust()
	b.boot.Loaded(projectDir, files, env)
}

// loadCatalog decodes the cache file and builds the catalog from every usable server's
// fresh entry; servers with a missing or stale entry are noted for a refresh. registered
// marks what the host was told about (nil: everything in the catalog).
func (b *Bridge) loadCatalog(registered map[catalog.ToolRef]bool) {
	file, err := cache.Read(b.opts.CachePath)
	b.catalogFromFile(file, err, registered, nil)
}

// catalogFromFile builds and publishes the catalog of a decoded cache file (err is what
// reading it gave); registered and unregistered are catalog.Change's.
func (b *Bridge) catalogFromFile(file *cache.File, err error, registered map[catalog.ToolRef]bool, unregistered map[catalog.ToolRef]string) {
	b.cacheErr = err
	tools := map[string][]cache.Tool{}
	b.stale = nil
	// Another project's private listing is no entry for this session: it lists the
	// server itself.
	entries := file.View(b.projectKey)
	for _, name := range b.names {
		s := b.servers[name].Config()
		if !b.runnable(name) {
			continue
		}
		e := entries[name]
		if e != nil && e.Protocol != "" && e.ProtocolKey == s.ProtocolKey() {
			// The revision is kept while what decides it is unchanged, even when the
			// tools are stale (another token in an env value).
			b.servers[name].SetProtocol(e.Protocol)
		}
		if e == nil || e.Fingerprint != s.Fingerprint() {
			b.stale = append(b.stale, name)
			continue
		}
		if !e.RefreshDue.IsZero() && !b.opts.Clock.Now().Before(e.RefreshDue) {
			// Its server's ttlMs has passed: the tools are offered as cached while the
			// server is listed again in the background.
			b.stale = append(b.stale, name)
		}
		b.remotes[name].RememberTransport(config.Transport(e.Transport))
		tools[name] = b.offeredTools(name, e.Tools, true)
	}
	b.x.extras.SetFrom(entries, slices.Collect(maps.Keys(tools)))
	b.publishCatalog(tools, registered, unregistered)
}

// publishCatalog publishes the catalog of tools, the whole of it, leaving the bodies
// unpacked until afterReady packs them (see catalog/toolbody.go).
func (b *Bridge) publishCatalog(tools map[string][]cache.Tool, registered map[catalog.ToolRef]bool, unregistered map[catalog.ToolRef]string) {
	b.changeCatalog(catalog.Change{Replace: true, Tools: tools, Registered: registered, Unregistered: unregistered, PackLater: true})
}

// changeCatalog is the one way the catalog changes (catalog.Owner.Change): the startup
// load, refresh merges, list_changed, trust changes and packing, one at a time.
func (b *Bridge) changeCatalog(ch catalog.Change) (*catalog.Catalog, []catalog.Collision) {
	return b.cats.Change(ch)
}

// background runs f in its own goroutine as background work, which Close waits for;
// once Close waits, nothing more starts (false: f did not run).
func (b *Bridge) background(f func()) bool {
	b.bgMu.Lock()
	defer b.bgMu.Unlock()
	if b.closing {
		return false
	}
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		f()
	}()
	return true
}

// frontChanged tells a front end that the catalog or the extras changed.
func (b *Bridge) frontChanged() {
	if b.opts.Front != nil {
		b.opts.Front.CatalogChanged()
	}
}

// catalog returns the current catalog. After a fast startup the full catalog is decoded
// in the background right after ready; the few callers that come before it wait for it.
func (b *Bridge) catalog() *catalog.Catalog { return b.cats.Current() }

// filterTools drops the tools the server's config hides (disabledTools, includeTools,
// excludeTools), so they are neither registered, nor searchable, nor callable.
func filterTools(tools []cache.Tool, cfg *config.Server) []cache.Tool {
	out := make([]cache.Tool, 0, len(tools))
	for _, t := range tools {
		if ok, _ := cfg.ToolAllowed(t.Name); ok {
			out = append(out, t)
		}
	}
	return out
}

// chooseMode applies the toolExposure setting, or detects from the host generation.
func chooseMode(cfg *config.Config, gen extension.Generation) (Mode, string) {
	switch cfg.ToolExposure {
	case "deferred", "proxy", "direct":
		return Mode(cfg.ToolExposure), fmt.Sprintf("toolExposure %q set in %s", cfg.ToolExposure, cfg.ToolExposureSource)
	}
	if gen == extension.GenNew {
		return ModeDeferred, "the host announces capabilities (a newer zot), so it hides deferred tools until activated"
	}
	return ModeProxy, "the host announces no capabilities (zot v0.1.62 or a middle release): it may advertise deferred tools eagerly, so only the search and call tools are registered; set \"toolExposure\": \"deferred\" in mcp.json if your zot supports deferred tools"
}

// Mode reports the active exposure mode and why it was chosen.
func (b *Bridge) Mode() (Mode, string) { return b.mode, b.modeWhy }

// Config returns the loaded configuration.
func (b *Bridge) Config() *config.Config { return b.cfg }

// Server returns a configured server by name.
func (b *Bridge) Server(name string) (*lifecycle.Server, bool) {
	s, ok := b.servers[name]
	return s, ok
}

// ServerNames lists configured servers, sorted.
func (b *Bridge) ServerNames() []string { return b.names }

// Setup is the host handshake: load local files, register, return (ready follows).
//
// Nothing that goes wrong here may leave the user without the bridge: a panic while
// loading (a damaged file, a bug) is recovered, the bridge goes on with what it has (or
// with no tools), and the search tool and /mcp are registered in every case, so every
// call and command is answered and /mcp says what happened.
func (b *Bridge) Setup(ctx context.Context, s *extension.Session) error {
	b.sess.Store(s)
	b.host = s.Host()
	dir := b.host.Cwd
	if dir == "" {
		b.opts.Log.Warn().Msg("hello_ack carried no cwd; project config and relative paths are unavailable")
	}
	if b.opts.StartupGC {
		defer startup.Runtime()()
	}
	if err := b.safely("loading the MCP config and tool cache", func() { b.loadLocal(dir) }); err != nil {
		b.recoverSetup(err)
	}
	if err := b.register(s); err != nil {
		return err
	}
	// The stale servers are listed right after ready: a search meanwhile is told that
	// tools are being fetched.
	fetching := len(b.stale) > 0
	if fetching {
		b.refreshing.Add(1)
	}
	started := b.background(func() {
		defer close(b.afterReadyDone)
		if fetching {
			defer b.refreshing.Add(-1)
		}
		select {
		case <-s.Ready():
		case <-b.bgCtx.Done():
			return
		}
		b.afterReady()
	})
	if !started {
		// Closed before it could start: nothing after ready runs, and who waits for it
		// is told.
		if fetching {
			b.refreshing.Add(-1)
		}
		close(b.afterReadyDone)
	}
	return nil
}

// loadLocal reads the config and either the startup file or the cache: everything Setup
// needs before it can register.
func (b *Bridge) loadLocal(dir string) {
	if b.opts.StageHook != nil {
		b.opts.StageHook("load")
	}
	sentc := startup.ReadSent(b.opts.CachePath)
	files := b.boot.InputFiles(dir)
	sent := <-sentc
	sentStale, early := b.boot.SendSent(sent, dir, files)
	b.loadConfig(dir, b.host.Generation())
	if early {
		b.startup = &startup.Set{Fast: true, Sent: true, Unregistered: b.boot.SentUnregistered()}
		b.stale = sentStale
		b.opts.Log.Debug().Bool("sent", true).Msg("registering from the startup file")
	} else if set, stale, ok := b.boot.LoadFile(); ok {
		b.startup, b.stale = set, stale
		b.opts.Log.Debug().Int("tools", len(b.startup.Tools)).Msg("registering from the startup file")
	} else if l, set, stale, ok := b.fromListings(); ok {
		// The catalog is built after ready, from the file decoded then.
		b.startup, b.stale, b.listings = set, stale, l
		b.opts.Log.Debug().Int("tools", len(b.startup.Tools)).Msg("registering from the tool cache's listings")
	} else if file, err := b.decodeCache(l); err != nil {
		b.catalogFromFile(file, err, nil, nil)
		b.startup = startup.FromCatalog(b.cats.Loaded(), file.View(b.projectKey))
	} else if set, stale, ok := startup.FromFile(file, b.usableConfigs(), b.projectKey, b.pins.pinsOf, b.cats.Namer()); ok {
		// The catalog is built after ready, from the file decoded now.
		b.startup, b.stale, b.decoded = set, stale, file
		b.opts.Log.Debug().Int("tools", len(b.startup.Tools)).Msg("registering from the decoded tool cache")
	} else {
		b.catalogFromFile(file, nil, nil, nil)
		b.startup = startup.FromCatalog(b.cats.Loaded(), file.View(b.projectKey))
	}
}

// safely runs f and turns a panic into an error naming what was being done.
func (b *Bridge) safely(doing string, f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error while %s: %v", doing, p)
			b.opts.Log.Error().Str("stack", string(debug.Stack())).Msg(err.Error())
		}
	}()
	f()
	return nil
}

// recoverSetup brings a bridge whose loading panicked into a working state: the config
// it has (or none), the catalog decoded from the cache if that still works, otherwise an
// empty one. The startup file is removed, as it may be what broke (it is rebuilt after
// ready).
func (b *Bridge) recoverSetup(err error) {
	b.setupErr = err
	if b.cfg == nil || b.servers == nil || len(b.servers) != len(b.names) {
		b.cfg = &config.Config{}
		b.servers, b.names = map[string]*lifecycle.Server{}, nil
	}
	if b.mode == "" {
		b.mode, b.modeWhy = chooseMode(b.cfg, b.host.Generation())
	}
	if rmErr := cache.RemoveFrames(cache.FramesPath(b.opts.CachePath)); rmErr != nil {
		b.opts.Log.Warn().Err(rmErr).Msg("startup file not removed")
	}
	// A sent section that went out stays: the writer may still be sending it (afterReady
	// releases it), and register must not send the registrations twice.
	b.startup, b.decoded, b.listings = nil, nil, nil
	if b.safely("decoding the tool cache", func() { b.loadCatalog(nil) }) != nil {
		b.publishCatalog(nil, nil, nil)
	}
	b.startup = startup.FromCatalog(b.cats.Loaded(), nil)
}

// registerTools adds every tool registration of the active mode to regs: the search
// tool, then the tools as pre-encoded frames (deferred or eager), or the proxy call tool.
// Setup registers /mcp after them, whatever happened here.
func (b *Bridge) registerTools(regs *extension.Registrations, set *startup.Set) error {
	dir := set.Directory()
	if err := regs.AddTool(extension.Tool{Name: SearchToolName, Description: b.searchDescriptionOf(dir), Schema: searchSchema}); err != nil {
		return err
	}
	look := b.lookFor(set, dir, b.host.Generation(), b.mode)
	if b.mode == ModeProxy {
		if err := regs.AddTool(extension.Tool{Name: CallToolName, Description: callToolDescription, Schema: callSchema}); err != nil {
			return err
		}
		b.addVisible(regs, set, &look)
	} else {
		b.addTools(regs, set, b.mode == ModeDeferred, &look)
	}
	if err := b.registerReadResource(regs); err != nil {
		return err
	}
	return b.registerTaskResult(regs)
}

// afterReady reports problems and refreshes servers whose cache entry is missing or stale.
func (b *Bridge) afterReady() {
	log := b.opts.Log
	// Before any command can change an approval: the inputs and the state they gave.
	b.boot.Ready(b.startup.Sent)
	// The search tables are built before the cache is decoded for the catalog: built by the
	// index, among the decoded cache's garbage, their many small objects would each keep a
	// page of that garbage resident in the idle bridge. A call arriving meanwhile waits for
	// them, as it would for the index.
	if err := b.safely("building the search tables", func() {
		if b.opts.StageHook != nil {
			b.opts.StageHook("tables")
		}
		b.opts.PrepareSearch()
	}); err != nil {
		b.setupErr = errors.Join(b.setupErr, err)
	}
	if b.startup.Fast {
		// A panic here would leave every call waiting for a catalog that never comes.
		if err := b.safely("decoding the tool cache", b.finishStartup); err != nil {
			b.setupErr = errors.Join(b.setupErr, err)
			b.catalogFromStartup()
		}
	}
	if !b.startup.Sent {
		// The next start with this configuration copies what this one sent.
		b.boot.Write()
	}
	// Approvals stored before tools were pinned: pin the cached tools they ran with.
	b.pinFirst(b.bgCtx, nil)
	// The frames are built and the catalog is published: nothing reads the set's
	// payloads any more.
	b.startup.Release()
	b.startup = nil
	// Written and flushed before ready.
	b.boot.Release()
	// Hand the startup garbage (the file bytes, the frames) back to the OS.
	debug.FreeOSMemory()
	cat := b.catalog()
	// Build the search index now, off the model's path, rather than in its first search.
	b.background(func() {
		// A panic here has no caller to recover it: it would end the process, and every
		// call with it.
		err := b.safely("building the search index", func() {
			if b.opts.StageHook != nil {
				b.opts.StageHook("index")
			}
			cat.SearchIndex()
			// Then pack the bodies the startup path left decoded (the packed catalog
			// shares the index): a search in the meantime is not kept waiting for it.
			b.cats.Pack()
		})
		if err != nil {
			b.note("error", fmt.Sprintf("MCP: see zot ext logs %s: %v; tool calls still work, search may not until /reload-ext.", ExtensionName, err))
		}
		// Building the index churns through several times its own size; return that to the
		// OS now rather than when the scavenger gets to it, so the idle bridge stays small.
		debug.FreeOSMemory()
	})
	log.Info().Int("servers", len(b.names)).Int("tools", len(cat.Entries)).Str("mode", string(b.mode)).Str("project", b.projectDir).Msg("registered")
	// One line per problem, each starting with what to do about it (the host cuts a line
	// at the terminal's edge where the bridge cannot wrap it).
	var lines []string
	// Faults that leave the bridge degraded come first: the user must hear of them even
	// though every call is still answered.
	if b.setupErr != nil {
		lines = append(lines, fmt.Sprintf("MCP: see zot ext logs %s: %s; the bridge carries on with what it could load.", ExtensionName, oneLine(b.setupErr)))
	}
	if b.cacheErr != nil {
		log.Warn().Err(b.cacheErr).Msg("tool cache ignored")
		switch {
		case b.cacheFallback && b.cacheListed:
			// Read at startup, so readable: damaged, and rewritten by the refresh below.
			lines = append(lines, fmt.Sprintf("MCP: if this comes back at the next start, delete the tool cache %s and run /mcp refresh: %v. Every server is listed again now; the tools registered at startup keep working meanwhile.",
				b.opts.CachePath, b.cacheErr))
		case b.cacheFallback:
			lines = append(lines, fmt.Sprintf("MCP: make the tool cache readable (chmod 600 %s) or delete it, then run /mcp refresh: %v. The tools registered at startup keep working from %s.",
				b.opts.CachePath, b.cacheErr, cache.FramesPath(b.opts.CachePath)))
		}
	}
	for _, p := range b.cfg.Problems {
		log.Warn().Str("problem", p.String()).Msg("config problem")
		lines = append(lines, problemLine(p))
	}
	if h := b.heldNote(); h != "" {
		log.Warn().Msg("tools held back until the user approves them")
		lines = append(lines, h)
	}
	if p := b.pendingNote(); p != "" {
		log.Warn().Strs("servers", b.pendingNames()).Msg("project servers await approval")
		lines = append(lines, p)
	}
	problems := strings.Join(lines, "\n")
	if problems != "" {
		b.note("warn", problems)
	}
	if len(b.stale) == 0 {
		return
	}
	parts, warn := b.RefreshEach(b.bgCtx, b.stale, nil).noteParts(b.opts.Surface, b.mode == ModeProxy)
	level := "success"
	if warn {
		level = "warn"
	}
	if len(parts) == 0 {
		return
	}
	// The note replaces the earlier one where the host can clear notes; keep the
	// problems in it so they stay visible.
	if problems != "" && b.host.Generation() == extension.GenNew {
		parts = append([]string{problems}, parts...)
		level = "warn"
	}
	b.note(level, strings.Join(parts, "\n"))
}

// problemLine is the startup note's line for one config problem: what to do first (fix
// or check the file), then where and what, then how the fix takes effect.
func problemLine(p config.Problem) string {
	if p.Warning() {
		return "MCP config: check " + strings.TrimPrefix(p.String(), "warning: ")
	}
	return "MCP config: fix " + p.String() + "; then /reload-ext"
}

// note shows one bridge note, replacing the bridge's earlier notes on hosts that support
// clear_notes (older hosts keep them until the next prompt).
func (b *Bridge) note(level, msg string) {
	b.x.notes.SetGeneral(level, msg)
}

// Refresh starts each named server (in parallel), lists its tools, and merges them into the
// cache file. It returns the servers whose cached tools changed and one error text per
// server that failed (naming it), plus one for a failed cache write. The live catalog is
// updated either way.
func (b *Bridge) Refresh(ctx context.Context, names []string) (changed []string, errs []string) {
	r := b.RefreshEach(ctx, names, nil)
	errs = r.Failed
	if r.CacheErr != nil {
		errs = append(errs, r.SaveText())
	}
	return r.Changed, errs
}

// RefreshResult is one server's outcome in a refresh.
type RefreshResult struct {
	Name    string
	Tools   int           // tools listed (before disabledTools)
	Elapsed time.Duration // start + initialize + list, on the bridge's clock
	Err     error
}

// RefreshReport is the outcome of a whole refresh.
type RefreshReport struct {
	Listed      int      // servers whose tools were listed
	ListedNames []string // their names, sorted
	Failed      []string // one error text per server that failed, naming it (for the user)
	// Changed lists the servers whose cached tools changed on disk; empty when the cache
	// could not be written.
	Changed []string
	// Unsaved lists the servers whose tools differ from the cache but could not be saved.
	Unsaved  []string
	CacheErr error // the cache file could not be updated
	// Flagged words what the injection audit found in the descriptions of tools listed
	// for the first time or changed ("" when nothing): the note of the refresh says it.
	Flagged string
	// ToolChanges says how the listed servers' tools changed: against the approved ones
	// (held back), or against the cached ones for a server whose tools are not pinned.
	ToolChanges []commands.ToolChange
}

// SaveText describes a failed cache write ("" when the write succeeded).
func (r RefreshReport) SaveText() string {
	if r.CacheErr == nil {
		return ""
	}
	return fmt.Sprintf("the tool cache could not be written (%v), so nothing was saved; fix that (free space, permissions of the directory), then refresh again", r.CacheErr)
}

// noteParts words a background refresh for a note: what could not be listed, what the
// cache now holds (and how to load it), or that nothing could be saved. warn says whether
// any of it is a problem.
func (r RefreshReport) noteParts(sf commands.Surface, proxy bool) (parts []string, warn bool) {
	if len(r.Failed) > 0 {
		warn = true
		// A failure carries the server's words (its stderr tail), shown escaped in a note.
		failed := make([]string, len(r.Failed))
		for i, f := range r.Failed {
			failed[i] = safetext.Escape(f)
		}
		parts = append(parts, "MCP: could not list tools of "+strings.Join(failed, "; ")+". Details: "+sf.Status())
	}
	for _, c := range r.ToolChanges {
		warn = warn || len(c.Held()) > 0
	}
	parts = append(parts, r.ToolChangeTexts(sf)...)
	if reload := commands.WithoutHeld(r.Changed, r.ToolChanges); len(reload) > 0 {
		parts = append(parts, fmt.Sprintf("MCP tool cache updated for %s: %s.", strings.Join(reload, ", "), sf.ToolsChanged(proxy)))
	}
	if r.CacheErr != nil {
		warn = true
		parts = append(parts, fmt.Sprintf("MCP: listed the tools of %s, but %s. They can be found with %s this session.",
			strings.Join(r.ListedNames, ", "), r.SaveText(), SearchToolName))
	}
	if r.Flagged != "" {
		warn = true
		parts = append(parts, r.Flagged)
	}
	return parts, warn
}

// RefreshEach is Refresh that also reports each server as soon as it finishes: each (if
// not nil) is called from the caller's goroutine, in the order the servers finish.
func (b *Bridge) RefreshEach(ctx context.Context, names []string, each func(RefreshResult)) RefreshReport {
	b.refreshing.Add(1)
	defer b.refreshing.Add(-1)
	type result struct {
		RefreshResult
		entry   *cache.Server
		private bool // not to be written at all (privateTo)
	}
	done := make(chan result, len(names))
	for _, name := range names {
		srv := b.servers[name]
		go func() {
			began := b.opts.Clock.Now()
			tools, err := srv.ListTools(ctx)
			r := result{RefreshResult: RefreshResult{Name: name, Tools: len(tools), Err: err}}
			r.Elapsed = b.opts.Clock.Now().Sub(began)
			if err == nil {
				r.entry = cacheServer(srv, tools)
				r.entry.Project, r.private = b.privateTo(srv)
				o := srv.ListOffers(ctx)
				resources.Fill(r.entry, o.Resources, o.Templates, o.Prompts)
			}
			done <- r
		}()
	}
	var rep RefreshReport
	put := map[string]*cache.Server{}    // written to the cache
	listed := map[string]*cache.Server{} // put and the private listings
	var drop []string
	for range names {
		r := <-done
		if each != nil {
			each(r.RefreshResult)
		}
		if r.Err != nil {
			rep.Failed = append(rep.Failed, lifecycle.UserText(r.Err))
			continue
		}
		rep.Listed++
		rep.ListedNames = append(rep.ListedNames, r.Name)
		listed[r.Name] = r.entry
		if r.private {
			// Offered this session only; an entry written before is dropped so that no
			// listing from another context is offered in its place.
			drop = append(drop, r.Name)
			continue
		}
		// A private listing (entry.Project set) is stored for this project only.
		put[r.Name] = r.entry
	}
	sort.Strings(rep.Failed)
	if len(put) == 0 && len(drop) == 0 {
		return rep
	}
	sort.Strings(rep.ListedNames)
	// ctx bounds the listing, not the save: what was listed is kept even when the time ran
	// out meanwhile (doctor's deadline is its slowest server's connect timeout, and a
	// server that never answers resources/list uses it up).
	sctx, cancel := clock.WithTimeout(context.WithoutCancel(ctx), b.opts.Clock, saveWait)
	defer cancel()
	// A pinned server with none pinned yet is pinned before anything is offered from
	// the listing.
	b.pinFirst(sctx, listed)
	// Update compares with the file it read under its lock: a comparison with a read of
	// our own, before taking it, would miss or invent changes made meanwhile by other
	// processes.
	changed, prev, err := cache.UpdatePrev(sctx, b.opts.CachePath, b.projectKey, put, drop, b.opts.Clock.Now)
	if err != nil {
		// Changed means changed on disk: after a failed write nothing is, and the note
		// must not send the user to /reload-ext. Unsaved names what the write would have
		// changed, so the note can say what is missing.
		before, _ := cache.Read(b.opts.CachePath) // never nil
		seen := before.View(b.projectKey)
		for _, name := range slices.Sorted(maps.Keys(put)) {
			if !cache.SameTools(seen[name], put[name]) {
				rep.Unsaved = append(rep.Unsaved, name)
			}
		}
		rep.CacheErr = err
		b.opts.Log.Warn().Err(err).Strs("servers", rep.ListedNames).Msg("tool cache not written")
	} else {
		rep.Changed = changed
		b.boot.Write()
	}
	rep.Flagged = b.newFindings(listed)
	rep.ToolChanges = b.toolChanges(listed, prev)
	b.mergeLive(listed)
	return rep
}

// mergeLive swaps in a catalog that includes freshly listed tools. Tools that were not
// registered at startup stay searchable (and callable through mcp__call_tool) but are
// marked unregistered, so deferred activation never names a tool the host does not know.
func (b *Bridge) mergeLive(put map[string]*cache.Server) {
	tools := make(map[string][]cache.Tool, len(put))
	for name, e := range put {
		tools[name] = b.offeredTools(name, e.Tools, false)
	}
	b.changeCatalog(catalog.Change{Tools: tools})
	b.x.extras.Merge(put)
	b.frontChanged()
}

// privateTo says where the server's last listing may be cached: a listing the server
// marked cacheScope "private" may be reused only in the authorization context that
// listed it. The cache is the user's own (0600 under ZOT_HOME), and a global server is
// the same configuration in every project, so its private listing is cached as any
// other. A project server's shared entry would be used by every project whose server
// has the same fingerprint, so its private listing is kept for this project only
// (project: its key, cache.Server.Project), and in a session without a project key it is
// not written at all (unwritten).
func (b *Bridge) privateTo(s *lifecycle.Server) (project string, unwritten bool) {
	if !s.CacheHints().Private || s.Config().Scope == config.ScopeGlobal {
		return "", false
	}
	if b.projectKey == "" {
		return "", true
	}
	return b.projectKey, false
}

// minRefreshAfter is the shortest time a listing is trusted whatever the server's ttlMs:
// a due listing wakes its server at the next start, and mcp-go servers send ttlMs 0 by
// default, which would otherwise wake every modern server at every start.
const minRefreshAfter = time.Hour

// cacheServer is what the cache keeps of a server from its live tool list.
func cacheServer(s *lifecycle.Server, tools []mcp.Tool) *cache.Server {
	info := s.Info()
	e := &cache.Server{Fingerprint: s.Config().Fingerprint(), ServerName: info.ServerName, Instructions: info.Instructions,
		UpdatedAt: s.Clock().Now().UTC()}
	if info.Protocol != "" && !info.ProtocolGuessed {
		e.Protocol, e.ProtocolKey = info.Protocol, s.Config().ProtocolKey()
	}
	if s.Config().TransportGuessed {
		e.Transport = string(info.Transport)
	}
	if h := s.CacheHints(); h.TTL != nil {
		e.RefreshDue = e.UpdatedAt.Add(max(*h.TTL, minRefreshAfter))
	}
	for _, t := range tools {
		e.Tools = append(e.Tools, catalog.ToCacheTool(t))
	}
	return e
}

// listChanged re-lists a server that announced a new tool list (coalescing bursts) and
// notifies once if the cached catalog changed.
func (b *Bridge) listChanged(name string) {
	b.listMu.Lock()
	if b.listPending[name] {
		b.listMu.Unlock()
		return
	}
	b.listPending[name] = true
	b.listMu.Unlock()
	b.background(func() {
		// Let a burst of changes settle before listing.
		settled, t := clock.After(b.opts.Clock, 200*time.Millisecond)
		select {
		case <-settled:
		case <-b.bgCtx.Done():
			t.Stop()
			return
		}
		b.listMu.Lock()
		delete(b.listPending, name)
		b.listMu.Unlock()
		r := b.RefreshEach(b.bgCtx, []string{name}, nil)
		for _, e := range r.Failed {
			b.opts.Log.Warn().Str("server", name).Str("error", e).Msg("re-list after list_changed failed")
		}
		switch {
		case len(r.ToolChanges) > 0:
			parts, warn := r.noteParts(b.opts.Surface, b.mode == ModeProxy)
			level := "info"
			if warn {
				level = "warn"
			}
			b.note(level, strings.Join(parts, "\n"))
		case len(r.Changed) > 0 && r.Flagged != "":
			b.note("warn", fmt.Sprintf("MCP server %q changed its tools; the cache is updated: %s.\n%s", name, b.opts.Surface.ToolsChanged(b.mode == ModeProxy), r.Flagged))
		case len(r.Changed) > 0:
			b.note("info", fmt.Sprintf("MCP server %q changed its tools; the cache is updated: %s.", name, b.opts.Surface.ToolsChanged(b.mode == ModeProxy)))
		case len(r.Unsaved) > 0:
			b.note("warn", nonEmptyLines(fmt.Sprintf("MCP server %q changed its tools, but %s. They can be found with %s this session.", name, r.SaveText(), SearchToolName), r.Flagged))
		}
	})
}

// nonEmptyLines joins the non-empty texts with newlines.
func nonEmptyLines(texts ...string) string {
	var out []string
	for _, t := range texts {
		if t != "" {
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n")
}

// Close stops background work and every server, in parallel, within ctx.
func (b *Bridge) Close(ctx context.Context) {
	b.stop()
	var wg sync.WaitGroup
	for _, s := range b.servers {
		wg.Add(1)
		go func() { defer wg.Done(); s.Stop(ctx) }()
	}
	wg.Wait()
	// Background work (refreshes, notes) sees the cancelled context; wait for it briefly.
	// None starts once the wait has begun.
	b.bgMu.Lock()
	b.closing = true
	b.bgMu.Unlock()
	done := make(chan struct{})
	go func() { b.bg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// oneLine is err's text on one line: the errors errors.Join joined, each on its own line,
// are separated by "; " instead, so that a note keeps one line per problem.
func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
