package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/startup"
)

// sendSent hands the startup file's sent section to the host when it was made from the
// raw inputs this start has: the same executable, host, cache file, config and approval
// files (files: inputFiles) and environment. It reports whether it did; a damaged file is discarded.
func (b *Bridge) sendSent(r startup.Read, projectDir string, files []byte) bool {
	if r.Err != nil {
		b.discardDamaged(r.Err)
		return false
	}
	var meta startup.Meta
	if err := json.Unmarshal([]byte(r.Sent.Meta), &meta); err != nil {
		r.Sent.Release()
		b.discardDamaged(fmt.Errorf("startup file: damaged sent section metadata: %w", err))
		return false
	}
	inputs := b.inputsDigest(projectDir, meta.Env, files)
	if r.Sent.Key != b.rawKey(r.Stamp, inputs) {
		r.Sent.Release()
		return false
	}
	s := b.sess.Load()
	if s == nil {
		r.Sent.Release()
		return false
	}
	// The writer uses the frames until ready is flushed; afterReady releases them.
	if err := s.RegisterEncoded(r.Sent.Frames); err != nil && !errors.Is(err, extension.ErrClosed) {
		// The checksum matched, so this is a bug in whatever wrote it: build them instead.
		r.Sent.Release()
		b.opts.Log.Warn().Err(err).Msg("startup file's registrations refused; building them")
		b.discardDamaged(err)
		return false
	}
	b.sent, b.sentMeta, b.sentInputs, b.sentStamp = r.Sent, meta, inputs, r.Stamp
	b.spareProcs(len(r.Sent.Frames))
	return true
}

// The sent section's keys (startup/sent.go), over what this bridge loaded.

// inputFiles reads the files the config and the approvals are loaded from for projectDir.
func (b *Bridge) inputFiles(projectDir string) []byte {
	return startup.InputFiles(b.opts.ZotHome, projectDir, b.trustPath())
}

// inputsDigest digests the raw inputs of loading the config for projectDir.
func (b *Bridge) inputsDigest(projectDir string, env []string, files []byte) string {
	return startup.InputsDigest(b.opts.ZotHome, projectDir, env, b.opts.LookupEnv, files)
}

// rawKey is the sent section's key for this host.
func (b *Bridge) rawKey(stamp cache.Stamp, inputs string) string {
	return startup.RawKey(stamp, inputs, b.host.Generation())
}

// stateCore is startup.StateCore of the loaded servers with the approvals pending (per
// b.names).
func (b *Bridge) stateCore(pending []bool) string {
	cfgs := make([]*config.Server, len(b.names))
	for i, name := range b.names {
		cfgs[i] = b.servers[name].cfg
	}
	return startup.StateCore(b.host.Generation(), string(b.mode), cfgs, pending)
}

// checkSent runs after ready when the sent section went out: the state it was built for
// must be the one loaded. If not, the raw key missed an input (a bug): the host already
// has the frames, so all that can be done is to say so and drop the file.
func (b *Bridge) checkSent() {
	if n := b.noted.Load(); n.inputs == b.sentInputs && startup.StateKey(b.sentStamp, n.state) == b.sentMeta.State {
		return
	}
	framesPath := cache.FramesPath(b.opts.CachePath)
	rmErr := cache.RemoveFrames(framesPath)
	b.opts.Log.Error().AnErr("remove", rmErr).Str("file", framesPath).Msg("the startup file's registrations were made for another configuration than the one loaded; discarded (restart zot or run /reload-ext if tools look wrong)")
}

// loadedInputs is what loadConfig read: the files (inputFiles, read before loading), the
// environment variables the config read, and which servers it left awaiting approval.
type loadedInputs struct {
	projectDir string
	files      []byte
	env        []string
	pending    []bool // per b.names
}

// pendingFlags lists, per server in b.names, whether it awaits approval.
func (b *Bridge) pendingFlags() []bool {
	out := make([]bool, len(b.names))
	for i, n := range b.names {
		out[i] = b.servers[n].pending.Load()
	}
	return out
}

// noteInputs digests the raw inputs the config was loaded from and the state they gave,
// for the sent section written later; off the startup path, as Setup does not need them
// before ready. Files that changed since they were read are not recorded (no sent section
// is written this session).
func (b *Bridge) noteInputs() {
	in := b.loaded
	slices.Sort(in.env)
	n := &notedInputs{env: slices.Compact(in.env), state: b.stateCore(in.pending)}
	if in.files != nil && bytes.Equal(in.files, b.inputFiles(in.projectDir)) {
		n.inputs = b.inputsDigest(in.projectDir, n.env, in.files)
	}
	b.noted.Store(n)
}

// notedInputs is the digest of what loadConfig read.
type notedInputs struct {
	inputs string // inputsDigest; "" when the files changed while they were loaded
	env    []string
	state  string // stateCore of the state they gave
}

// register sends everything Setup registers, in one hand-off to the writer, unless the
// sent section went out already: the registrations built for the active mode, and /mcp.
// A panic while building costs the tools, never /mcp.
func (b *Bridge) register(s *extension.Session) error {
	if b.sent != nil {
		return nil
	}
	regs, err := b.registrations()
	if err != nil {
		return err
	}
	return s.Register(regs)
}

// registrations builds what Setup registers for the startup set: the tools of the active
// mode and /mcp.
func (b *Bridge) registrations() (*extension.Registrations, error) {
	regs := &extension.Registrations{}
	regErr := b.safely("registering the MCP tools", func() {
		if err := b.registerTools(regs, b.startup); err != nil {
			b.opts.Log.Warn().Err(err).Msg("tools not registered")
		}
	})
	if regErr != nil {
		b.setupErr = errors.Join(b.setupErr, regErr)
		regs = &extension.Registrations{}
	}
	if err := regs.AddCommand(CommandName, commandDescription); err != nil {
		return nil, err
	}
	return regs, nil
}

// commandDescription describes /mcp in the host's command list.
const commandDescription = "MCP servers: status, start/stop, refresh, login, setup (try /mcp help)"

// sentSection is the sent section for the cache version stamp whose payloads are servers:
// the registrations a fresh start with this configuration and this host sends, under the
// key of the raw inputs this process loaded its configuration from. It is nil outside a
// host session (the CLI knows no host), when those inputs changed while they were loaded,
// and when the state changed since (an approval given or withdrawn this session): a fresh
// start with those inputs would not build these registrations.
func (b *Bridge) sentSection(stamp cache.Stamp, servers map[string]*cache.FrameServer) *cache.Sent {
	n := b.noted.Load()
	if b.sess.Load() == nil || n == nil || n.inputs == "" {
		return nil
	}
	if b.stateCore(b.pendingFlags()) != n.state {
		return nil
	}
	set, stale, ok := startup.SetFrom(servers, b.usableConfigs(), catalog.NewNamer())
	if !ok {
		return nil
	}
	regs := &extension.Registrations{}
	if err := b.registerTools(regs, set); err != nil {
		return nil
	}
	if err := regs.AddCommand(CommandName, commandDescription); err != nil {
		return nil
	}
	meta, err := json.Marshal(startup.Meta{Stale: stale, Env: n.env, State: startup.StateKey(stamp, n.state)})
	if err != nil || b.stateCore(b.pendingFlags()) != n.state {
		return nil
	}
	return &cache.Sent{Key: b.rawKey(stamp, n.inputs), Meta: string(meta), Frames: regs.Bytes()}
}

// startupTools fills the startup set of a start that copied the sent section with the
// tools it registered, from the file's payloads, for when the cache cannot be decoded
// after all. The names are the ones sent: the namer is still fresh, and the key says the
// payloads and the config are the ones they were built from.
func (b *Bridge) startupTools() {
	stamp, err := cache.StampOf(b.opts.CachePath)
	if err != nil {
		return
	}
	servers, err := cache.ReadFrames(cache.FramesPath(b.opts.CachePath), stamp)
	if err != nil {
		return
	}
	if set, _, ok := startup.SetFrom(servers, b.usableConfigs(), b.cats.Namer()); ok {
		b.startup.Tools = set.Tools
	}
}
