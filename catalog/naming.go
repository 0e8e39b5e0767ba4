package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Prefix starts every tool name the bridge registers.
const Prefix = "mcp__"

// MaxToolName is the longest tool name providers accept (OpenAI and Anthropic cap at 64).
const MaxToolName = 64

// hashLen is how many hex digits of SHA-256 a shortened or de-duplicated name carries.
const hashLen = 8

// Sanitize maps a server or tool name onto [A-Za-z0-9_]: every other rune becomes '_', a
// leading digit gets a "t_" prefix and an empty result becomes "unnamed".
func Sanitize(s string) string {
	if clean(s) {
		return s // most names are; no copy
	}
	return string(appendSanitized(make([]byte, 0, len(s)+2), s))
}

// appendSanitized appends Sanitize(s) to dst.
func appendSanitized(dst []byte, s string) []byte {
	start := len(dst)
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			dst = append(dst, byte(r))
		default:
			dst = append(dst, '_')
		}
	}
	if len(dst) == start {
		return append(dst, "unnamed"...)
	}
	if c := dst[start]; c >= '0' && c <= '9' {
		dst = append(dst, "t_"...)
		copy(dst[start+2:], dst[start:len(dst)-2])
		copy(dst[start:], "t_")
	}
	return dst
}

// clean reports whether Sanitize would return s unchanged.
func clean(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// shortHash is a stable digest of the exact (server, tool) pair.
func shortHash(server, tool string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return hex.EncodeToString(sum[:])[:hashLen]
}

// baseName is the plain mcp__<server>__<tool> name, shortened to MaxToolName with a hash
// suffix when it is too long.
func baseName(server, tool string) string {
	var buf [2 * MaxToolName]byte
	return string(appendBaseName(buf[:0], server, tool))
}

// appendBaseName appends baseName(server, tool) to dst.
func appendBaseName(dst []byte, server, tool string) []byte {
	start := len(dst)
	dst = append(dst, Prefix...)
	dst = appendSanitized(dst, server)
	dst = append(dst, "__"...)
	dst = appendSanitized(dst, tool)
	if len(dst)-start <= MaxToolName {
		return dst
	}
	dst = append(dst[:start+MaxToolName-hashLen-1], '_')
	return append(dst, shortHash(server, tool)...)
}

// ToolRef identifies one MCP tool of one configured server.
type ToolRef struct {
	Server string // configured server name
	Tool   string // MCP tool name as the server knows it
}

// Collision records a tool that could not get its plain name.
type Collision struct {
	Ref      ToolRef
	Wanted   string // the plain name another tool already holds
	Assigned string // the name it got instead
}

// Namer hands out registered names for the life of a process: once a name is given to a
// (server, tool) it stays with it, and is never given to another tool, whatever later
// refreshes add or remove. (A refresh that added a/"x y" used to move mcp__a__x_y from
// a/x-y to the new tool, so a host call reached the wrong tool.) Safe for concurrent use.
type Namer struct {
	mu    sync.Mutex
	given []givenEntry // every name given, with its tool, in the order given
	taken nameTable    // every name in given
	// moved holds the tools that did not get their plain name (baseName); every other tool
	// given a name holds its plain one, so it needs no second map entry.
	moved map[ToolRef]int32
	// servers are the servers of given, each once (serverOf: its place); tools holds the
	// tools' names that are not the end of their registered names (givenEntry.tool < 0).
	servers  []string
	serverOf map[string]int32
	tools    map[int32]string
}

// NewNamer returns a Namer that has given out no names.
func NewNamer() *Namer {
	return &Namer{moved: map[ToolRef]int32{}, taken: newNameTable(), serverOf: map[string]int32{}, tools: map[int32]string{}}
}

// givenEntry is a name given out and its tool, as the Namer keeps it: a third of a
// givenName, as the tool's name is almost always the end of the registered name and a
// few servers have every tool.
type givenEntry struct {
	name   string
	server int32 // in servers
	tool   int32 // where the tool's name begins in name; -1: it is in tools
}

// at is the i-th name given, with its tool.
func (n *Namer) at(i int32) givenName {
	e := &n.given[i]
	tool, ok := n.tools[i]
	if !ok {
		tool = e.name[e.tool:]
	}
	return givenName{ref: ToolRef{Server: n.servers[e.server], Tool: tool}, name: e.name}
}

// givenName is a name given out with its tool, both as first stored, so that every
// catalog shares one copy of the name and of the tool's strings.
type givenName struct {
	ref  ToolRef
	name string
}

// givenTo returns the name given to ref earlier, if any; base is ref's baseName.
func (n *Namer) givenTo(ref ToolRef, base []byte) (givenName, bool) {
	if i, ok := n.moved[ref]; ok {
		return n.at(i), true
	}
	if i, ok := n.taken.find(n.given, base); ok {
		if g := n.at(i); g.ref == ref {
			return g, true
		}
	}
	return givenName{}, false
}

// Assign returns the names of refs: the name given earlier where there is one, else a new
// unique one. New names are deterministic for a given history: new refs are taken in
// (server, tool) order, each free plain name goes to the first ref that wants it, and the
// rest get a hash suffix of their exact pair; a suffixed name that is itself taken (a real
// tool can be called x_1a2b3c4d) is re-hashed until it is free. Collisions lists the new
// refs that did not get their plain name.
func (n *Namer) Assign(refs []ToolRef) (map[ToolRef]string, []Collision) {
	names := make(map[ToolRef]string, len(refs))
	collisions := n.assign(refs, func(ref ToolRef, g givenName) { names[ref] = g.name })
	return names, collisions
}

// assign is Assign that hands each ref's name, with the tool's strings as the Namer
// keeps them, to put.
func (n *Namer) assign(refs []ToolRef, put func(ToolRef, givenName)) []Collision {
	sorted := append([]ToolRef(nil), refs...)
	// A startup set comes in order already: checking is a pass, sorting many.
	if !slices.IsSortedFunc(sorted, CompareRefs) {
		slices.SortFunc(sorted, CompareRefs)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	// A new tool's name and its strings are copied into one string for the whole call
	// (text): the strings it came with are pieces of a decoded listing or cache, which
	// would each keep a page of that garbage resident for the life of the process.
	type span struct{ off, end int32 }
	type freshRef struct {
		server, tool, name span // in text
	}
	fresh := make([]freshRef, 0, len(sorted))
	servers := map[string]span{}
	var buf []byte
	for i, ref := range sorted {
		if i > 0 && sorted[i-1] == ref {
			continue
		}
		// The base name is made once, at the end of buf, and kept only for a new tool.
		start := len(buf)
		buf = appendBaseName(buf, ref.Server, ref.Tool)
		if g, ok := n.givenTo(ref, buf[start:]); ok {
			buf = buf[:start]
			put(ref, g)
			continue
		}
		f := freshRef{name: span{int32(start), int32(len(buf))}}
		if name := buf[start:]; len(name) > len(ref.Tool) && string(name[len(name)-len(ref.Tool):]) == ref.Tool {
			// A plain name ends with the tool's own name when that needs no sanitising.
			f.tool = span{f.name.end - int32(len(ref.Tool)), f.name.end}
		} else {
			buf = append(buf, ref.Tool...)
			f.tool = span{f.name.end, int32(len(buf))}
		}
		sp, ok := servers[ref.Server]
		if !ok {
			sp.off = int32(len(buf))
			buf = append(buf, ref.Server...)
			sp.end = int32(len(buf))
			servers[ref.Server] = sp
		}
		f.server = sp
		fresh = append(fresh, f)
	}
	text := string(buf)
	at := func(s span) string { return text[s.off:s.end] }
	n.given = slices.Grow(n.given, len(fresh))
	// A start's whole set sizes the table once instead of growing it step by step.
	n.taken.reserve(n.given, len(n.given)+len(fresh))
	// Plain names first, so a suffixed name never takes the plain name of a later tool.
	var late []ToolRef
	for _, f := range fresh {
		ref, name := ToolRef{Server: at(f.server), Tool: at(f.tool)}, at(f.name)
		if n.taken.has(n.given, name) {
			late = append(late, ref)
			continue
		}
		put(ref, n.give(ref, name, true))
	}
	var collisions []Collision
	for _, ref := range late {
		wanted := baseName(ref.Server, ref.Tool)
		name := wanted
		for attempt := 0; ; attempt++ {
			h := shortHash(ref.Server, ref.Tool)
			if attempt > 0 {
				h = shortHash(ref.Server, ref.Tool+"\x00"+strconv.Itoa(attempt))
			}
			suffix := "_" + h
			name = wanted
			if len(name)+len(suffix) > MaxToolName {
				name = name[:MaxToolName-len(suffix)]
			}
			name += suffix
			if !n.taken.has(n.given, name) {
				break
			}
		}
		put(ref, n.give(ref, name, false))
		collisions = append(collisions, Collision{Ref: ref, Wanted: wanted, Assigned: name})
	}
	return collisions
}

// give records that name belongs to ref from now on; plain says it is ref's baseName.
func (n *Namer) give(ref ToolRef, name string, plain bool) givenName {
	i := int32(len(n.given))
	sid, ok := n.serverOf[ref.Server]
	if !ok {
		sid = int32(len(n.servers))
		n.servers = append(n.servers, ref.Server)
		n.serverOf[ref.Server] = sid
	}
	e := givenEntry{name: name, server: sid, tool: int32(len(name) - len(ref.Tool))}
	if !strings.HasSuffix(name, ref.Tool) {
		e.tool = -1
		n.tools[i] = ref.Tool
	}
	n.given = append(n.given, e)
	if !plain {
		n.moved[ref] = i
	}
	n.taken.add(n.given, i)
	return n.at(i)
}
