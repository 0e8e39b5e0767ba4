package startup

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/fsutil"
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

// KeyVersion changes whenever what goes into the key, or how the registrations are
// built from it, changes in a way the executable's identity would not show. Version 2:
// Meta names the tools that were not registered.
const KeyVersion = 2

// Read is the startup file's sent section as read beside the config (or why not).
type Read struct {
	Stamp cache.Stamp
	Sent  *cache.Sent
	Err   error
}

// ReadSent maps the sent section of the startup file of the cache at cachePath and checks
// its checksum in the background, while Setup reads the files its key covers (InputFiles).
func ReadSent(cachePath string) <-chan Read {
	out := make(chan Read, 1)
	go func() {
		var r Read
		defer func() {
			if p := recover(); p != nil {
				r = Read{Err: fmt.Errorf("reading the startup file: %v", p)}
			}
			out <- r
		}()
		if r.Stamp, r.Err = cache.StampOf(cachePath); r.Err != nil {
			return
		}
		r.Sent, r.Err = cache.ReadSent(cache.FramesPath(cachePath), r.Stamp)
	}()
	return out
}

// Meta is what the sent section keeps beside the frames: what Setup needs to know
// before ready that it would otherwise learn while building them, and what checks them.
type Meta struct {
	Stale []string `json:"stale,omitempty"` // usable servers without a fresh cache entry
	Env   []string `json:"env,omitempty"`   // the environment variables the config read
	State string   `json:"state"`           // StateKey of the state they were built for
	// Unregistered are the tools the frames leave out, and why (Set.Unregistered).
	Unregistered []Unregistered `json:"unregistered,omitempty"`
}

// Unregistered is a tool of the startup set that the sent frames leave out.
type Unregistered struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Why    string `json:"why"`
}

// InputFiles reads the files the config and the approvals are loaded from (what
// config.Load reads for zotHome and projectDir, and the approval store at trustPath), each
// with whether it exists and whether another user could change it (the loaders refuse
// such a file, so a chmod alone changes what loads), in one buffer. A file that only its
// owner, another user, can write is marked apart from one others can write too: the
// config loader reads the first kind from a project and refuses the second.
func InputFiles(zotHome, projectDir, trustPath string) []byte {
	var paths []string
	if zotHome != "" {
		paths = append(paths, absPath(config.GlobalPath(zotHome)))
	}
	if projectDir != "" {
		paths = append(paths, config.ProjectPaths(absPath(projectDir))...)
	}
	paths = append(paths, trustPath)
	var out []byte
	for _, p := range paths {
		data, unsafe, err := fsutil.ReadFileChecked(p)
		out = binary.LittleEndian.AppendUint64(append(out, p...), uint64(len(data)))
		switch {
		case err != nil:
			out = append(out, 0)
			continue
		case unsafe != nil:
			var ue *fsutil.UnsafeError
			if errors.As(unsafe, &ue) && ue.OwnerOnly {
				out = append(out, 3)
			} else {
				out = append(out, 2)
			}
		default:
			out = append(out, 1)
		}
		out = append(out, data...)
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

// InputsDigest digests the raw inputs of loading the config for projectDir and zotHome:
// the files (InputFiles), the home directory and the values of the environment variables
// env, looked up with lookupEnv.
func InputsDigest(zotHome, projectDir string, env []string, lookupEnv func(string) (string, bool), files []byte) string {
	h := sha256.New()
	w := keyWriter{h}
	w.str(projectDir)
	w.str(absPath(projectDir))
	w.str(zotHome)
	home, _ := os.UserHomeDir()
	w.str(home)
	w.str(string(files))
	w.num(int64(len(env)))
	for _, name := range env {
		v, ok := lookupEnv(name)
		w.str(name)
		w.flag(ok)
		w.str(v)
	}
	return hexSum(h)
}

// RawKey is the sent section's key for the cache version stamp, the digest of the
// config's raw inputs and the host generation.
func RawKey(stamp cache.Stamp, inputs string, gen extension.Generation) string {
	h := sha256.New()
	w := keyWriter{h}
	w.num(KeyVersion)
	w.str(executableID())
	w.num(stamp.Size)
	w.num(stamp.ModTime)
	w.num(int64(gen))
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

// StateCore identifies the loaded state the registrations of a start are built from: the
// configured servers in name order with the approvals pending (per server), as a hex
// digest: the executable (the code that builds them), the host generation and the
// exposure mode, and every configured server's name, origin, fingerprint, whether it may
// run or awaits approval, the settings that filter or mark its tools, its instructions
// (registered as namespace text) and its pinned tools (pins; nil pins nothing). With the
// cache file's version (StateKey) it is everything: naming depends on nothing else (a
// fresh process names the same tools the same way).
func StateCore(gen extension.Generation, mode string, servers []*config.Server, pending []bool, pins Pins) string {
	h := sha256.New()
	w := keyWriter{h}
	w.num(KeyVersion)
	w.str(executableID())
	w.num(int64(gen))
	w.str(mode)
	w.num(int64(len(servers)))
	for i, c := range servers {
		w.str(c.Name)
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
		w.flag(c.PinTools)
		p := pins.of(c.Name)
		w.flag(p != nil)
		w.num(int64(len(p)))
		for _, kv := range config.SortedPairs(p) {
			w.str(kv[0])
			w.str(kv[1])
		}
		w.strs(c.AlwaysLoad)
		w.str(c.Instructions)
	}
	return hexSum(h)
}

// StateKey is the state core with the cache file's version.
func StateKey(stamp cache.Stamp, core string) string {
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
