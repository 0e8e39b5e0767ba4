package bridge

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// The startup file's sent section holds the registrations a start sent, exactly as sent
// (named, framed, in order), under a key over the raw inputs they were built from: the
// executable, the host generation, the cache file's version, the project directory, the
// bytes of the config and approval files and the values of the environment variables the
// config read. A start whose key matches hands the section to the writer before it even
// loads the config, so the config is parsed while the bytes move through the pipe; no
// payload is parsed, no name assigned, no frame built. The config loaded afterwards is
// checked against the state the section was built for (a second key, kept beside it), so
// an input the raw key missed would be caught and the file dropped. Anything that does not
// match falls back to building the registrations from the payloads or the cache, and the
// file is rewritten after ready for the configuration at hand.

// sentKeyVersion changes whenever what goes into the key, or how the registrations are
// built from it, changes in a way the executable's identity would not show.
const sentKeyVersion = 1

// sentRead is the startup file's sent section as read beside the config (or why not).
type sentRead struct {
	stamp cache.Stamp
	sent  *cache.Sent
	err   error
}

// readSent maps the startup file's sent section and checks its checksum in the background,
// while Setup reads the files its key covers (inputFiles).
func (b *Bridge) readSent() <-chan sentRead {
	out := make(chan sentRead, 1)
	go func() {
		var r sentRead
		defer func() {
			if p := recover(); p != nil {
				r = sentRead{err: fmt.Errorf("reading the startup file: %v", p)}
			}
			out <- r
		}()
		if r.stamp, r.err = cache.StampOf(b.opts.CachePath); r.err != nil {
			return
		}
		r.sent, r.err = cache.ReadSent(cache.FramesPath(b.opts.CachePath), r.stamp)
	}()
	return out
}

// sendSent hands the startup file's sent section to the host when it was made from the
// raw inputs this start has: the same executable, host, cache file, config and approval
// files (files: inputFiles) and environment. It reports whether it did; a damaged file is discarded.
func (b *Bridge) sendSent(r sentRead, projectDir string, files []byte) bool {
	if r.err != nil {
		b.discardDamaged(r.err)
		return false
	}
	var meta sentMeta
	if err := json.Unmarshal([]byte(r.sent.Meta), &meta); err != nil {
		r.sent.Release()
		b.discardDamaged(fmt.Errorf("startup file: damaged sent section metadata: %w", err))
		return false
	}
	inputs := b.inputsDigest(projectDir, meta.Env, files)
	if r.sent.Key != b.rawKey(r.stamp, inputs) {
		r.sent.Release()
		return false
	}
	s := b.sess.Load()
	if s == nil {
		r.sent.Release()
		return false
	}
	// The writer uses the frames until ready is flushed; afterReady releases them.
	if err := s.RegisterEncoded(r.sent.Frames); err != nil && !errors.Is(err, extension.ErrClosed) {
		// The checksum matched, so this is a bug in whatever wrote it: build them instead.
		r.sent.Release()
		b.opts.Log.Warn().Err(err).Msg("startup file's registrations refused; building them")
		b.discardDamaged(err)
		return false
	}
	b.sent, b.sentMeta, b.sentInputs, b.sentStamp = r.sent, meta, inputs, r.stamp
	b.spareProcs(len(r.sent.Frames))
	return true
}

// checkSent runs after ready when the sent section went out: the state it was built for
// must be the one loaded. If not, the raw key missed an input (a bug): the host already
// has the frames, so all that can be done is to say so and drop the file.
func (b *Bridge) checkSent() {
	if n := b.noted.Load(); n.inputs == b.sentInputs && stateKey(b.sentStamp, n.state) == b.sentMeta.State {
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

// sentMeta is what the sent section keeps beside the frames: what Setup needs to know
// before ready that it would otherwise learn while building them, and what checks them.
type sentMeta struct {
	Stale []string `json:"stale,omitempty"` // usable servers without a fresh cache entry
	Env   []string `json:"env,omitempty"`   // the environment variables the config read
	State string   `json:"state"`           // stateKey of the state they were built for
}

// inputFiles reads the files the config and the approvals are loaded from (what config.Load
// and loadTrust read), each with whether it exists, in one buffer.
func (b *Bridge) inputFiles(projectDir string) []byte {
	var paths []string
	if b.opts.ZotHome != "" {
		paths = append(paths, absPath(config.GlobalPath(b.opts.ZotHome)))
	}
	if projectDir != "" {
		paths = append(paths, config.ProjectPaths(absPath(projectDir))...)
	}
	paths = append(paths, b.trustPath())
	var out []byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		out = binary.LittleEndian.AppendUint64(append(out, p...), uint64(len(data)))
		if err != nil {
			out = append(out, 0)
			continue
		}
		out = append(append(out, 1), data...)
	}
	return out
}

// absPath is p made absolute as config.Load makes it.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// inputsDigest digests the raw inputs of loading the config for projectDir: the files
// (inputFiles), the home directory and the values of the environment variables env.
func (b *Bridge) inputsDigest(projectDir string, env []string, files []byte) string {
	h := sha256.New()
	w := keyWriter{h}
	w.str(projectDir)
	w.str(absPath(projectDir))
	w.str(b.opts.ZotHome)
	home, _ := os.UserHomeDir()
	w.str(home)
	w.str(string(files))
	w.num(int64(len(env)))
	for _, name := range env {
		v, ok := b.opts.LookupEnv(name)
		w.str(name)
		w.flag(ok)
		w.str(v)
	}
	return hexSum(h)
}

// rawKey is the sent section's key for the cache version stamp and the digest of the
// config's raw inputs.
func (b *Bridge) rawKey(stamp cache.Stamp, inputs string) string {
	h := sha256.New()
	w := keyWriter{h}
	w.num(sentKeyVersion)
	w.str(executableID())
	w.num(stamp.Size)
	w.num(stamp.ModTime)
	w.num(int64(b.host.Generation()))
	w.str(inputs)
	return hexSum(h)
}

// keyWriter writes values into a hash unambiguously (lengths before bytes).
type keyWriter struct{ h hash.Hash }

func (w keyWriter) num(v int64) { _ = binary.Write(w.h, binary.LittleEndian, v) }

func (w keyWriter) str(s string) {
	w.num(int64(len(s)))
	_, _ = io.WriteString(w.h, s)
}

func (w keyWriter) strs(ss []string) {
	w.num(int64(len(ss)))
	for _, s := range ss {
		w.str(s)
	}
}

func (w keyWriter) flag(v bool) {
	if v {
		w.num(1)
	} else {
		w.num(0)
	}
}

// stateCore identifies the loaded state the registrations of a start are built from, with
// the approvals pending (per b.names), as a hex digest: the executable (the code that builds them), the host generation and the
// exposure mode, and every configured server's name, origin, fingerprint, whether it may
// run or awaits approval, and the settings that filter or mark its tools. With the cache
// file's version (stateKey) it is everything: naming depends on nothing else (a fresh
// process names the same tools the same way).
func (b *Bridge) stateCore(pending []bool) string {
	h := sha256.New()
	w := keyWriter{h}
	w.num(sentKeyVersion)
	w.str(executableID())
	w.num(int64(b.host.Generation()))
	w.str(string(b.mode))
	w.num(int64(len(b.names)))
	for i, name := range b.names {
		c := b.servers[name].cfg
		w.str(name)
		w.str(c.Source)
		w.str(c.Scope)
		w.str(c.Fingerprint())
		w.flag(c.Usable() && !pending[i])
		w.flag(pending[i])
		w.flag(c.Enabled)
		w.strs(c.DisabledTools)
		w.strs(c.IncludeTools)
		w.strs(c.ExcludeTools)
		w.strs(c.InteractiveTools)
	}
	return hexSum(h)
}

// stateKey is the state core with the cache file's version.
func stateKey(stamp cache.Stamp, core string) string {
	h := sha256.New()
	w := keyWriter{h}
	w.num(stamp.Size)
	w.num(stamp.ModTime)
	w.str(core)
	return hexSum(h)
}

// hexSum is h's digest in hex.
func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// executableID names the running executable's build: its path, size and modification
// time (a rebuilt bridge may encode registrations differently). Empty when unknown.
func executableID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%d\x00%d", exe, st.Size(), st.ModTime().UnixNano())
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
	set, stale, ok := b.startupSetFrom(servers, NewNamer())
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
	meta, err := json.Marshal(sentMeta{Stale: stale, Env: n.env, State: stateKey(stamp, n.state)})
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
	if set, _, ok := b.startupSetFrom(servers, b.namer); ok {
		b.startup.tools = set.tools
	}
}
