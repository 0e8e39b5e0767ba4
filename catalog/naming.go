package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
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
	if clean(s) {
		return append(dst, s...) // most names are: one copy
	}
	start := len(dst)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
			dst = append(dst, c)
			i++
		case c < utf8.RuneSelf:
			dst = append(dst, '_')
			i++
		default:
			// One '_' a rune, as ranging over s counts them (an invalid byte is one).
			_, size := utf8.DecodeRuneInString(s[i:])
			dst = append(dst, '_')
			i += size
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
	collisions := n.assign(refs, func(i int, g givenName) { names[refs[i]] = g.name })
	return names, collisions
}

// Names is Assign with the names by index: names[i] is the name of refs[i] (a ref listed
// twice gets its one name twice).
func (n *Namer) Names(refs []ToolRef) (names []string, collisions []Collision) {
	names = make([]string, len(refs))
	collisions = n.assign(refs, func(i int, g givenName) { names[i] = g.name })
	return names, collisions
}

// assign is Assign that hands the name of each refs[i], with the tool's strings as the
// Namer keeps them, to put(i, ...).
func (n *Namer) assign(refs []ToolRef, put func(i int, g givenName)) []Collision {
	// The refs are taken in (server, tool) order: order lists their indices in it, or is
	// nil when they come in it already (a startup set does: checking is a pass, sorting many).
	var order []int32
	if !slices.IsSortedFunc(refs, CompareRefs) {
		order = make([]int32, len(refs))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int { return CompareRefs(refs[a], refs[b]) })
	}
	index := func(k int) int {
		if order == nil {
			return k
		}
		return int(order[k])
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	// A new tool's name and its strings are copied into one string for the whole call
	// (text): the strings it came with are pieces of a decoded listing or cache, which
	// would each keep a page of that garbage resident for the life of the process.
	type span struct{ off, end int32 }
	type freshRef struct {
		server, tool, name span  // in text
		at, end            int32 // the ref's places in order (a ref listed twice has two)
	}
	var fresh []freshRef
	var buf, probe []byte
	var server span // in text: the last fresh ref's server, which later ones of it share
	for k := 0; k < len(refs); {
		ref := refs[index(k)]
		end := k + 1
		for end < len(refs) && refs[index(end)] == ref {
			end++
		}
		// The base name is made in probe and copied into buf only for a new tool: a
		// refresh names nearly every tool again, and needs no text at all.
		probe = appendBaseName(probe[:0], ref.Server, ref.Tool)
		if g, ok := n.givenTo(ref, probe); ok {
			for ; k < end; k++ {
				put(index(k), g)
			}
			continue
		}
		if buf == nil {
			// Sized at the first new tool for the plain names and servers of the refs
			// left: grown by append, buf would be copied over and over.
			room := 0
			for j := k; j < len(refs); j++ {
				r := refs[index(j)]
				room += len(Prefix) + 2 + len(r.Server) + len(r.Tool)
			}
			buf = make([]byte, 0, room+room/8)
			fresh = make([]freshRef, 0, len(refs)-k)
		}
		start := len(buf)
		buf = append(buf, probe...)
		f := freshRef{name: span{int32(start), int32(len(buf))}, at: int32(k), end: int32(end)}
		if name := buf[start:]; len(name) > len(ref.Tool) && string(name[len(name)-len(ref.Tool):]) == ref.Tool {
			// A plain name ends with the tool's own name when that needs no sanitising.
			f.tool = span{f.name.end - int32(len(ref.Tool)), f.name.end}
		} else {
			buf = append(buf, ref.Tool...)
			f.tool = span{f.name.end, int32(len(buf))}
		}
		// The refs of one server come side by side in (server, tool) order.
		if len(fresh) == 0 || string(buf[server.off:server.end]) != ref.Server {
			server.off = int32(len(buf))
			buf = append(buf, ref.Server...)
			server.end = int32(len(buf))
		}
		f.server = server
		fresh = append(fresh, f)
		k = end
	}
	text := string(buf)
	at := func(s span) string { return text[s.off:s.end] }
	n.given = slices.Grow(n.given, len(fresh))
	// A start's whole set sizes the table once instead of growing it step by step.
	n.taken.reserve(n.given, len(n.given)+len(fresh))
	give := func(f freshRef, name string, plain bool, sid int32) {
		g := n.give(ToolRef{Server: at(f.server), Tool: at(f.tool)}, name, plain, sid)
		for k := f.at; k < f.end; k++ {
			put(index(int(k)), g)
		}
	}
	// Plain names first, so a suffixed name never takes the plain name of a later tool.
	var late []freshRef
	sid, sidOf := int32(-1), span{-1, -1}
	for _, f := range fresh {
		if f.server != sidOf {
			sid, sidOf = n.serverID(at(f.server)), f.server
		}
		if name := at(f.name); !n.taken.has(n.given, name) {
			give(f, name, true, sid)
		} else {
			late = append(late, f)
		}
	}
	var collisions []Collision
	for _, f := range late {
		ref := ToolRef{Server: at(f.server), Tool: at(f.tool)}
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
		give(f, name, false, n.serverID(ref.Server))
		collisions = append(collisions, Collision{Ref: ref, Wanted: wanted, Assigned: name})
	}
	return collisions
}

// serverID is server's place in servers, added there if it is not yet.
func (n *Namer) serverID(server string) int32 {
	sid, ok := n.serverOf[server]
	if !ok {
		sid = int32(len(n.servers))
		n.servers = append(n.servers, server)
		n.serverOf[server] = sid
	}
	return sid
}

// give records that name belongs to ref from now on; plain says it is ref's baseName, sid
// is ref's server's serverID.
func (n *Namer) give(ref ToolRef, name string, plain bool, sid int32) givenName {
	i := int32(len(n.given))
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
