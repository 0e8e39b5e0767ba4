package bridge

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// The startup file's sent section holds the registrations a start sent, exactly as sent
// (named, framed, in order), under a key over everything they were built from. A start
// whose key matches copies them to the host in one write and builds nothing: no payloads
// parsed, no names assigned, no frames assembled. Anything that does not match falls back
// to building the registrations from the payloads or from the cache, and the file is
// rewritten after ready for the configuration at hand.

// sentKeyVersion changes whenever what goes into the key, or how the registrations are
// built from it, changes in a way the executable's identity would not show.
const sentKeyVersion = 1

// sentRead is the startup file's sent section as read beside the config (or why not).
type sentRead struct {
	stamp cache.Stamp
	sent  *cache.Sent
	err   error
}

// readSent reads the startup file's sent section in the background, while Setup loads the
// config: the two are independent, and the key that says whether the section can be used
// needs both.
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

// useSent takes the sent section when it was made for this start: the same cache file,
// configuration, trust decisions, host and executable. A damaged file is discarded.
func (b *Bridge) useSent(r sentRead) bool {
	if r.err != nil {
		b.discardDamaged(r.err)
		return false
	}
	if r.sent.Key != b.sentKey(r.stamp) {
		r.sent.Release()
		return false
	}
	var meta sentMeta
	if err := json.Unmarshal([]byte(r.sent.Meta), &meta); err != nil {
		r.sent.Release()
		b.discardDamaged(fmt.Errorf("startup file: damaged sent section metadata: %w", err))
		return false
	}
	b.sent = r.sent
	b.startup = &startupSet{fast: true, sent: true}
	b.stale = meta.Stale
	return true
}

// sentMeta is what the sent section keeps beside the frames: what Setup needs to know
// before ready that it would otherwise learn while building them.
type sentMeta struct {
	Stale []string `json:"stale,omitempty"` // usable servers without a fresh cache entry
}

// sentKey identifies everything the registrations of a start are built from, as a hex
// digest: the cache file's version (its payloads and which servers it has fresh entries
// for), the executable (the code that builds them), the host generation and the exposure
// mode, and every configured server's name, origin, fingerprint, whether it may run or
// awaits approval, and the settings that filter or mark its tools. A change to any of them
// changes the key; naming depends on nothing else (a fresh process names the same tools
// the same way).
func (b *Bridge) sentKey(stamp cache.Stamp) string {
	h := sha256.New()
	num := func(v int64) { _ = binary.Write(h, binary.LittleEndian, v) }
	str := func(s string) { num(int64(len(s))); _, _ = h.Write([]byte(s)) }
	strs := func(ss []string) {
		num(int64(len(ss)))
		for _, s := range ss {
			str(s)
		}
	}
	flag := func(v bool) {
		if v {
			num(1)
		} else {
			num(0)
		}
	}
	num(sentKeyVersion)
	exe := executableID()
	str(exe)
	num(stamp.Size)
	num(stamp.ModTime)
	num(int64(b.host.Generation()))
	str(string(b.mode))
	num(int64(len(b.names)))
	for _, name := range b.names {
		srv := b.servers[name]
		c := srv.cfg
		str(name)
		str(c.Source)
		str(c.Scope)
		str(c.Fingerprint())
		flag(b.runnable(name))
		flag(srv.pending.Load())
		flag(c.Enabled)
		strs(c.DisabledTools)
		strs(c.IncludeTools)
		strs(c.ExcludeTools)
		strs(c.InteractiveTools)
	}
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

// register sends everything Setup registers, in one hand-off to the writer: the sent
// section when it was made for this start, otherwise the registrations built for the
// active mode, and /mcp. A panic while building costs the tools, never /mcp.
func (b *Bridge) register(s *extension.Session) error {
	if b.sent != nil {
		// The writer uses the frames until ready is flushed; afterReady releases them.
		err := s.RegisterEncoded(b.sent.Frames)
		if err == nil || errors.Is(err, extension.ErrClosed) {
			return err
		}
		b.sent.Release()
		b.sent = nil
		// The checksum matched, so this is a bug in whatever wrote it: build them instead.
		b.opts.Log.Warn().Err(err).Msg("startup file's registrations refused; building them from its payloads")
		b.discardDamaged(err)
		b.startup = &startupSet{fast: true, sent: true}
		b.startupTools()
		b.startup.sent = false
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
// the registrations a fresh start with this configuration and this host sends, under
// their key. It is nil outside a host session (the CLI knows no host) and when the
// configuration or approvals changed while it was built.
func (b *Bridge) sentSection(stamp cache.Stamp, servers map[string]*cache.FrameServer) *cache.Sent {
	if b.sess.Load() == nil {
		return nil
	}
	key := b.sentKey(stamp)
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
	meta, err := json.Marshal(sentMeta{Stale: stale})
	if err != nil || b.sentKey(stamp) != key {
		return nil
	}
	return &cache.Sent{Key: key, Meta: string(meta), Frames: regs.Bytes()}
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
