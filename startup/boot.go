package startup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// Env is where the startup file and the raw inputs are, and the process's startup
// settings. Host.Env returns it on every use, as the bridge's options may change
// between loads (tests adjust them).
type Env struct {
	CachePath string // the tool cache; the startup file is cache.FramesPath of it
	ZotHome   string
	TrustPath string // the approval store
	LookupEnv func(string) (string, bool)
	Log       zerolog.Logger
	// SpareProcs allows adding two Ps while a large sent section is written (only a
	// process that runs one bridge may change GOMAXPROCS).
	SpareProcs bool
}

// Host is what Boot asks of the bridge that owns it: the host session, the loaded config
// state and how the active mode's registrations are built. Boot never sees the bridge.
type Host interface {
	Env() Env
	// Session is the host session; nil outside one (the CLI knows no host).
	Session() *extension.Session
	// Generation is the host's generation (zero outside a host session).
	Generation() extension.Generation
	// Servers lists the config of every loaded server in name order, and whether each
	// awaits approval.
	Servers() (cfgs []*config.Server, pending []bool)
	// Usable lists the config of every server that may run, in name order: the servers
	// whose tools are registered at startup.
	Usable() []*config.Server
	// Project is the key of the loaded project (trust.ProjectKey of its directory; ""
	// outside one): the private listings a start may use are its project's.
	Project() string
	// Pins is a server's pinned tools, nil when its tools are not pinned (see Pins).
	Pins(server string) map[string]string
	// Mode is the active exposure mode.
	Mode() string
	// Namer is the catalog's namer, whose names stay with their tools for the process.
	Namer() *catalog.Namer
	// Registrations adds to regs what Setup registers for set in the active mode: the
	// tools and /mcp.
	Registrations(regs *extension.Registrations, set *Set) error
}

// Boot is the bridge's startup glue: it sends the startup file's sent section, fills the
// startup set from the file, discards a damaged file, keeps the raw inputs the config was
// loaded from and rewrites the file after ready.
type Boot struct {
	host Host

	sent *cache.Sent // the sent section, when it went out at this start
	// What the sent section was checked against.
	meta   Meta
	inputs string
	stamp  cache.Stamp
	procs  int                   // GOMAXPROCS to restore after ready (spareProcs); 0: unchanged
	loaded loadedInputs          // what the config load read, digested after ready (noteInputs)
	noted  atomic.Pointer[noted] // their digest, once noteInputs ran
}

// NewBoot returns the startup glue of the bridge behind host.
func NewBoot(host Host) *Boot { return &Boot{host: host} }

// SendSent hands the startup file's sent section to the host when it was made from the
// raw inputs this start has: the same executable, host, cache file, config and approval
// files (files: InputFiles) and environment. It reports whether it did, and the stale
// servers the section recorded; a damaged file is discarded.
func (b *Boot) SendSent(r Read, projectDir string, files []byte) (stale []string, ok bool) {
	if r.Err != nil {
		b.DiscardDamaged(r.Err)
		return nil, false
	}
	var meta Meta
	if err := json.Unmarshal([]byte(r.Sent.Meta), &meta); err != nil {
		r.Sent.Release()
		b.DiscardDamaged(fmt.Errorf("startup file: damaged sent section metadata: %w", err))
		return nil, false
	}
	inputs := b.inputsDigest(projectDir, meta.Env, files)
	if r.Sent.Key != b.rawKey(r.Stamp, inputs) {
		r.Sent.Release()
		return nil, false
	}
	s := b.host.Session()
	if s == nil {
		r.Sent.Release()
		return nil, false
	}
	// The writer uses the frames until ready is flushed; Release releases them.
	if err := s.RegisterEncoded(r.Sent.Frames); err != nil && !errors.Is(err, extension.ErrClosed) {
		// The checksum matched, so this is a bug in whatever wrote it: build them instead.
		r.Sent.Release()
		log := b.host.Env().Log
		log.Warn().Err(err).Msg("startup file's registrations refused; building them")
		b.DiscardDamaged(err)
		return nil, false
	}
	b.sent, b.meta, b.inputs, b.stamp = r.Sent, meta, inputs, r.Stamp
	b.spareProcs(len(r.Sent.Frames))
	return meta.Stale, true
}

// Sent reports whether the sent section went out at this start (and is not released).
func (b *Boot) Sent() bool { return b.sent != nil }

// SentUnregistered are the tools the sent section left out, and why (nil when it did
// not go out).
func (b *Boot) SentUnregistered() map[catalog.ToolRef]string {
	if b.sent == nil || len(b.meta.Unregistered) == 0 {
		return nil
	}
	out := make(map[catalog.ToolRef]string, len(b.meta.Unregistered))
	for _, u := range b.meta.Unregistered {
		out[catalog.ToolRef{Server: u.Server, Tool: u.Tool}] = u.Why
	}
	return out
}

// Release releases the sent section once the writer is done with it (ready is flushed).
func (b *Boot) Release() {
	if b.sent != nil {
		b.sent.Release()
		b.sent = nil
	}
}

// InputFiles reads the files the config and the approvals are loaded from for projectDir.
func (b *Boot) InputFiles(projectDir string) []byte {
	env := b.host.Env()
	return InputFiles(env.ZotHome, projectDir, env.TrustPath)
}

// inputsDigest digests the raw inputs of loading the config for projectDir.
func (b *Boot) inputsDigest(projectDir string, env []string, files []byte) string {
	e := b.host.Env()
	return InputsDigest(e.ZotHome, projectDir, env, e.LookupEnv, files)
}

// rawKey is the sent section's key for this host.
func (b *Boot) rawKey(stamp cache.Stamp, inputs string) string {
	return RawKey(stamp, inputs, b.host.Generation())
}

// stateCore is StateCore of the loaded servers with the approvals pending (per server in
// name order).
func (b *Boot) stateCore(pending []bool) string {
	cfgs, _ := b.host.Servers()
	return StateCore(b.host.Generation(), b.host.Mode(), cfgs, pending, b.host.Pins)
}

// Ready runs after ready: it restores GOMAXPROCS, digests the inputs the config was
// loaded from (before any command can change an approval) and, when the sent section
// went out (sent), checks it was built for the state loaded.
func (b *Boot) Ready(sent bool) {
	if b.procs > 0 {
		runtime.GOMAXPROCS(b.procs)
	}
	b.noteInputs()
	if sent {
		b.checkSent()
	}
}

// checkSent runs after ready when the sent section went out: the state it was built for
// must be the one loaded. If not, the raw key missed an input (a bug): the host already
// has the frames, so all that can be done is to say so and drop the file.
func (b *Boot) checkSent() {
	if n := b.noted.Load(); n.inputs == b.inputs && StateKey(b.stamp, n.state) == b.meta.State {
		return
	}
	env := b.host.Env()
	framesPath := cache.FramesPath(env.CachePath)
	rmErr := cache.RemoveFrames(framesPath)
	env.Log.Error().AnErr("remove", rmErr).Str("file", framesPath).Msg("the startup file's registrations were made for another configuration than the one loaded; discarded (restart zot or run /reload-ext if tools look wrong)")
}

// loadedInputs is what the config load read: the files (InputFiles, read before
// loading), the environment variables the config read, and which servers it left
// awaiting approval.
type loadedInputs struct {
	projectDir string
	files      []byte
	env        []string
	pending    []bool // per server in name order
}

// Loaded records what the config load for projectDir read: files (InputFiles, read
// before loading) and the environment variables the config read; which servers await
// approval is asked of the host now.
func (b *Boot) Loaded(projectDir string, files []byte, env []string) {
	_, pending := b.host.Servers()
	b.loaded = loadedInputs{projectDir: projectDir, files: files, env: env, pending: pending}
}

// noteInputs digests the raw inputs the config was loaded from and the state they gave,
// for the sent section written later; off the startup path, as Setup does not need them
// before ready. Files that changed since they were read are not recorded (no sent section
// is written this session).
func (b *Boot) noteInputs() {
	in := b.loaded
	slices.Sort(in.env)
	n := &noted{env: slices.Compact(in.env), state: b.stateCore(in.pending)}
	if in.files != nil && bytes.Equal(in.files, b.InputFiles(in.projectDir)) {
		n.inputs = b.inputsDigest(in.projectDir, n.env, in.files)
	}
	b.noted.Store(n)
}

// noted is the digest of what the config load read.
type noted struct {
	inputs string // inputsDigest; "" when the files changed while they were loaded
	env    []string
	state  string // stateCore of the state they gave
}

// sentSection is the sent section for the cache version stamp whose payloads are servers:
// the registrations a fresh start with this configuration and this host sends, under the
// key of the raw inputs this process loaded its configuration from. It is nil outside a
// host session (the CLI knows no host), when those inputs changed while they were loaded,
// and when the state changed since (an approval given or withdrawn this session): a fresh
// start with those inputs would not build these registrations.
func (b *Boot) sentSection(stamp cache.Stamp, servers map[string]*cache.FrameServer) *cache.Sent {
	n := b.noted.Load()
	if b.host.Session() == nil || n == nil || n.inputs == "" {
		return nil
	}
	if b.stateCore(b.pending()) != n.state {
		return nil
	}
	set, stale, ok := SetFrom(servers, b.host.Usable(), b.host.Project(), b.host.Pins, catalog.NewNamer())
	if !ok {
		return nil
	}
	regs := &extension.Registrations{}
	if err := b.host.Registrations(regs, set); err != nil {
		return nil
	}
	var unregistered []Unregistered
	for _, ref := range slices.SortedFunc(maps.Keys(set.Unregistered), catalog.CompareRefs) {
		unregistered = append(unregistered, Unregistered{Server: ref.Server, Tool: ref.Tool, Why: set.Unregistered[ref]})
	}
	meta, err := json.Marshal(Meta{Stale: stale, Env: n.env, State: StateKey(stamp, n.state), Unregistered: unregistered})
	if err != nil || b.stateCore(b.pending()) != n.state {
		return nil
	}
	return &cache.Sent{Key: b.rawKey(stamp, n.inputs), Meta: string(meta), Frames: regs.Bytes()}
}

// pending lists, per server in name order, whether it awaits approval now.
func (b *Boot) pending() []bool {
	_, p := b.host.Servers()
	return p
}

// FillSent fills set, the startup set of a start that copied the sent section, with the
// tools it registered, from the file's payloads, for when the cache cannot be decoded
// after all. The names are the ones sent: the namer is still fresh, and the key says the
// payloads and the config are the ones they were built from.
func (b *Boot) FillSent(set *Set) {
	cachePath := b.host.Env().CachePath
	stamp, err := cache.StampOf(cachePath)
	if err != nil {
		return
	}
	servers, err := cache.ReadFrames(cache.FramesPath(cachePath), stamp)
	if err != nil {
		return
	}
	if s, _, ok := SetFrom(servers, b.host.Usable(), b.host.Project(), b.host.Pins, b.host.Namer()); ok {
		set.Tools, set.dir = s.Tools, s.dir
	}
}

// spareProcs adds two Ps until ready (Ready restores them) when a large sent section is
// being written while Setup loads the config. Stdin is a blocking pipe, so the reader
// waiting on it holds a P in a system call until the runtime's monitor takes it back,
// which in a process that has been idle can take milliseconds: without a spare P the
// writer would wait for the config to be loaded instead of sending meanwhile. Changing
// GOMAXPROCS stops the world, which costs more than it saves for a small section.
func (b *Boot) spareProcs(size int) {
	if b.host.Env().SpareProcs && size >= SpareProcsFrom {
		b.procs = runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 2)
	}
}

// LoadFile builds the startup set from the startup file when it was made from the
// current cache file, without decoding the cache, with the stale servers it records. Its
// payloads point into the file's mapped payload section until the set's Release. It
// reports false when the file is missing, damaged or stale; the caller then decodes the
// cache.
func (b *Boot) LoadFile() (set *Set, stale []string, ok bool) {
	cachePath := b.host.Env().CachePath
	stamp, err := cache.StampOf(cachePath)
	if err != nil {
		return nil, nil, false
	}
	servers, release, err := cache.MapFrames(cache.FramesPath(cachePath), stamp)
	if err != nil {
		b.DiscardDamaged(err)
		return nil, nil, false
	}
	set, stale, ok = SetFrom(servers, b.host.Usable(), b.host.Project(), b.host.Pins, b.host.Namer())
	if !ok {
		release()
		b.DiscardDamaged(errors.New("startup file: a payload is not a run of JSON members"))
		return nil, nil, false
	}
	set.Fast, set.release = true, release
	return set, stale, true
}

// DiscardDamaged removes the startup file when err says it is damaged (not missing, not
// stale): it is derived data, so no later start should trip over it; the tools are
// registered from the cache and the file is rebuilt after ready.
func (b *Boot) DiscardDamaged(err error) {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, cache.ErrFramesStale) || errors.Is(err, cache.ErrNoSent) {
		return
	}
	env := b.host.Env()
	framesPath := cache.FramesPath(env.CachePath)
	rmErr := cache.RemoveFrames(framesPath)
	env.Log.Warn().Err(err).AnErr("remove", rmErr).Str("file", framesPath).Msg("damaged startup file discarded; registering from the tool cache and rebuilding it")
}

// Write rewrites the startup file from the cache file as it is now: every server's
// payloads and, in a host session, the registrations a start with this configuration and
// this host sends, under their key. It gives up quietly if the cache changes while it
// reads (the next refresh writes it again).
func (b *Boot) Write() {
	env := b.host.Env()
	before, err := cache.StampOf(env.CachePath)
	if err != nil {
		return
	}
	file, err := cache.Read(env.CachePath)
	if err != nil {
		return
	}
	if after, err := cache.StampOf(env.CachePath); err != nil || after != before {
		return
	}
	servers := Payloads(file)
	if err := cache.WriteStartup(cache.FramesPath(env.CachePath), before, b.sentSection(before, servers), servers); err != nil {
		env.Log.Warn().Err(err).Msg("startup file not written")
	}
}
