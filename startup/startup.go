// Package startup is what goes to the host before ready: the startup set (each tool's
// registered name and pre-encoded payload, from the startup file or a decoded catalog),
// the payloads the startup file keeps, and the keys of its sent section over the raw
// inputs and the loaded state; and the bridge's startup glue (Boot) that sends the sent
// section, builds the startup set from the file and rewrites it after ready. It knows the
// startup file's data, not the Bridge: the bridge hands it the usable servers, the Namer
// and the inputs it read, and Boot asks the rest through the small Host interface.
package startup

import (
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/parallel"
	"github.com/zot-mcp/mcp-bridge/toolview"
	"github.com/zot-mcp/mcp-bridge/trust"
)

// HeapLimit bounds the heap while Runtime holds the collector off: past it the
// runtime collects as usual, so a huge catalog cannot run the process out of memory.
const HeapLimit = 512 << 20

// Runtime turns the garbage collector off until the returned function runs. The bridge's
// Setup allocates a few times the startup file's size in a fresh process whose heap target is
// tiny, so several collections would run inside the host's registration window and
// collect almost nothing: all of it is either kept or dropped right after ready.
func Runtime() (restore func()) {
	pct := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(HeapLimit)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(pct)
	}
}

// SpareProcsFrom is the size of a sent section worth two more Ps while it is written.
const SpareProcsFrom = 1 << 20

// Tool is one tool to register at startup: its registered name and the pre-encoded rest
// of its register_tool frame (description and schema).
type Tool struct {
	Ref     catalog.ToolRef
	Name    string
	Payload extension.ToolPayload
	// src is the cleaned cached tool the payload is made from while Payload is nil
	// (FromListings: made as the frames are built, AppendPayload).
	src source
}

// source is a cleaned cached tool a payload is made from, and whether its schemas are
// compact as its reader found them (cache.Listing.ReadCompact): its payload copies them.
type source struct {
	tool    *cache.Tool
	compact bool
}

// AppendPayload appends the tool's payload to dst: Payload, or the one made from its
// cached tool.
func (t *Tool) AppendPayload(dst []byte) []byte {
	if t.Payload == nil && t.src.tool != nil {
		if t.src.compact {
			return appendCompactPayload(dst, t.Ref.Server, t.src.tool)
		}
		return appendPayload(dst, t.Ref.Server, t.src.tool)
	}
	return append(dst, t.Payload...)
}

// PayloadSize is the size of the tool's payload, or a little over it while it is not made
// (unless its text needs many escapes): what buffers are sized by.
func (t *Tool) PayloadSize() int {
	if t.Payload == nil && t.src.tool != nil {
		return payloadRoom(t.src.tool)
	}
	return len(t.Payload)
}

// Set is what the bridge's Setup registers: the tools of every usable server whose cache
// entry is fresh, in name order.
type Set struct {
	Tools []Tool
	Fast  bool // read from the startup file rather than decoded from the cache
	// Sent: the registrations were copied from the startup file's sent section, so Tools
	// is empty (the bridge's startupTools fills it when it is needed after all).
	Sent bool
	// Instructions are, per server of Tools, what its MCP initialize said about using it
	// (the cache entry's Instructions; absent when it said nothing): namespace text.
	Instructions map[string]string
	// Unregistered are the set's tools that were not registered after all (their frame
	// would not fit in the host's line), and why: the catalog marks them so that search
	// and activation skip them and /mcp <server> names them.
	Unregistered map[catalog.ToolRef]string

	dir     []toolview.DirEntry // Directory of Tools, when SetFrom built it
	release func()              // unmaps the startup file's payloads Tools point into (LoadFile)
}

// Release gives back the startup file's payloads the set's tools point into when they
// were mapped (Boot.LoadFile): nothing of the set's payloads may be used afterwards. It is
// for after ready, once the frames are built and the catalog no longer needs them.
func (s *Set) Release() {
	if s != nil && s.release != nil {
		s.release()
		s.release = nil
		s.Tools = nil
	}
}

// Payload is the payload of the set's tool i, made and kept if it was not yet (for what
// needs it whole before the frames are built, or after: the few tools alwaysLoad makes
// visible, the catalog built from the set).
func (s *Set) Payload(i int) extension.ToolPayload {
	t := &s.Tools[i]
	if t.Payload == nil && t.src.tool != nil {
		t.Payload, t.src = PayloadFor(t.Ref.Server, t.src.tool), source{}
	}
	return t.Payload
}

// Directory is the search tool's directory of the set's tools (toolview.Directory).
func (s *Set) Directory() []toolview.DirEntry {
	if s.dir == nil || len(s.Tools) == 0 {
		return toolview.Directory(s.Refs())
	}
	return s.dir
}

// NotRegistered records that the set's tool ref was not registered after all, and why.
func (s *Set) NotRegistered(ref catalog.ToolRef, why string) {
	if s.Unregistered == nil {
		s.Unregistered = map[catalog.ToolRef]string{}
	}
	s.Unregistered[ref] = why
}

// PayloadFor encodes a tool's description and schema as they follow the name in its
// register_tool frame.
func PayloadFor(server string, t *cache.Tool) extension.ToolPayload {
	return extension.ToolPayload(appendPayload(nil, server, t))
}

// appendPayload appends PayloadFor(server, t) to dst.
func appendPayload(dst []byte, server string, t *cache.Tool) []byte {
	return extension.AppendToolPayload(dst, payloadTool(server, t))
}

// appendCompactPayload is appendPayload of a tool whose schemas are compact
// (extension.AppendCompactToolPayload): the same bytes.
func appendCompactPayload(dst []byte, server string, t *cache.Tool) []byte {
	return extension.AppendCompactToolPayload(dst, payloadTool(server, t))
}

// payloadTool is what a payload is made of: t's registered description (catalog.DescribeParts,
// its hints appended as it is encoded) and schemas.
func payloadTool(server string, t *cache.Tool) extension.Tool {
	desc, hints := catalog.DescribeParts(server, t)
	return extension.Tool{Description: desc, DescriptionSuffix: hints, Schema: t.InputSchema, OutputSchema: t.OutputSchema}
}

// payloadRoom is about the room a tool's payload takes in a buffer, a little over when
// its text needs no escapes, so that a listing's payloads encode into one buffer.
func payloadRoom(t *cache.Tool) int {
	n := len(t.Description) + len(t.Title) + len(t.InputSchema) + len(t.OutputSchema)
	return n + n/16 + 128
}

// Pins gives a server's pinned tools (tool name → trust.ToolFingerprint), nil when its
// tools are not pinned: the tools that differ from their pins are held back, never
// registered. A nil Pins pins nothing.
type Pins func(server string) map[string]string

// of is the pins of server (nil when p is nil).
func (p Pins) of(server string) map[string]string {
	if p == nil {
		return nil
	}
	return p(server)
}

// SetFrom is the startup set of the startup file's payloads for a start in project (its
// key; private listings of other projects are never used), named through namer: every
// tool of each of the usable servers (in name order) whose entry has the server's
// fingerprint, that its config does not hide and that pins does not hold back, in name
// order. stale lists the usable servers without such an entry. ok is false when a payload
// is damaged.
func SetFrom(servers map[string]*cache.FrameServer, usable []*config.Server, project string, pins Pins, namer *catalog.Namer) (set *Set, stale []string, ok bool) {
	return setFrom(servers, usable, project, pins, namer, true, nil)
}

// setFrom is SetFrom; check says whether the payloads are checked (Valid): those read
// from the startup file are, those PayloadFor just made need not be (the frames are
// checked again as they are added, Registrations.AddPayloadIn). srcs, when not nil, are
// per server the cleaned cached tools of its FrameServer's tools (by index), whose
// payloads are not made yet.
func setFrom(servers map[string]*cache.FrameServer, usable []*config.Server, project string, pins Pins, namer *catalog.Namer, check bool, srcs map[string][]source) (set *Set, stale []string, ok bool) {
	// Sized for every tool of the fresh entries: grown by append, the three would take
	// about twice their size in fresh memory.
	most := 0
	for _, s := range usable {
		if fs := servers[s.Name].In(project); fs != nil && fs.Fingerprint == s.Fingerprint() {
			most += len(fs.Tools)
		}
	}
	refs := make([]catalog.ToolRef, 0, most)
	payloads := make([]extension.ToolPayload, 0, most) // of refs
	var sources []source                               // of refs, with srcs
	if srcs != nil {
		sources = make([]source, 0, most)
	}
	for _, s := range usable {
		name := s.Name
		fs := servers[name].In(project)
		if fs == nil || fs.Fingerprint != s.Fingerprint() {
			stale = append(stale, name)
			continue
		}
		pinned := pins.of(name)
		// A listing in name order (as the cache keeps it) has its duplicates side by side.
		var seen map[string]bool
		if !slices.IsSortedFunc(fs.Tools, func(a, b cache.FrameTool) int { return strings.Compare(a.Name, b.Name) }) {
			seen = map[string]bool{}
		}
		last := -1 // refs' index of the server's last tool taken
		for k, t := range fs.Tools {
			if allowed, _ := s.ToolAllowed(t.Name); !allowed || trust.Held(pinned, t.Name, t.Pin) {
				continue
			}
			if seen != nil {
				if seen[t.Name] {
					continue
				}
				seen[t.Name] = true
			} else if last >= 0 && refs[last].Tool == t.Name {
				continue
			}
			p := extension.ToolPayload(t.Payload)
			if check && !p.Valid() {
				return nil, nil, false
			}
			last = len(refs)
			refs = append(refs, catalog.ToolRef{Server: name, Tool: t.Name})
			payloads = append(payloads, p)
			if srcs != nil {
				sources = append(sources, srcs[name][k])
			}
		}
	}
	// The search tool's directory is made of the same tools: built meanwhile.
	dir := directory(refs)
	names, _ := namer.Names(refs)
	set = &Set{Tools: make([]Tool, len(refs))}
	for _, s := range usable {
		if fs := servers[s.Name].In(project); fs != nil && fs.Fingerprint == s.Fingerprint() && fs.Instructions != "" {
			if set.Instructions == nil {
				set.Instructions = map[string]string{}
			}
			set.Instructions[s.Name] = fs.Instructions
		}
	}
	for k, i := range nameOrder(names) {
		set.Tools[k] = Tool{Ref: refs[i], Name: names[i], Payload: payloads[i]}
		if sources != nil {
			set.Tools[k].src = sources[i]
		}
	}
	set.dir = <-dir
	return set, stale, true
}

// nameOrder lists the indices of names in name order. The names come in runs in order
// (a server's tools in the order it lists them, its server's place among the others),
// so the runs are merged, two side by side at a time, until one is left: a pass over the
// names for each doubling of the runs' length, where sorting them one by one takes many.
func nameOrder(names []string) []int32 {
	order := make([]int32, len(names))
	for i := range order {
		order[i] = int32(i)
	}
	type run struct{ at, end int32 } // names[order[at:end]] are in order
	var runs []run
	for at := 0; at < len(names); {
		end := at + 1
		for end < len(names) && names[end-1] <= names[end] {
			end++
		}
		runs = append(runs, run{int32(at), int32(end)})
		at = end
	}
	if len(runs) <= 1 {
		return order
	}
	from, to := order, make([]int32, len(names))
	for len(runs) > 1 {
		merged := runs[:0]
		for j := 0; j < len(runs); j += 2 {
			a := runs[j]
			if j+1 == len(runs) {
				copy(to[a.at:a.end], from[a.at:a.end])
				merged = append(merged, a)
				continue
			}
			b := runs[j+1]
			x, y, k := a.at, b.at, a.at
			for x < a.end && y < b.end {
				if names[from[y]] < names[from[x]] {
					to[k], y = from[y], y+1
				} else {
					to[k], x = from[x], x+1
				}
				k++
			}
			k += int32(copy(to[k:], from[x:a.end]))
			copy(to[k:], from[y:b.end])
			merged = append(merged, run{a.at, b.end})
		}
		runs = merged
		from, to = to, from
	}
	return from
}

// directory sends toolview.Directory of refs, which come server by server (as setFrom
// lists them), built in two halves split between servers on goroutines of their own: on
// a large catalog it is the longest of setFrom's steps, which the namer's waits for.
func directory(refs []catalog.ToolRef) <-chan []toolview.DirEntry {
	out := make(chan []toolview.DirEntry, 1)
	// Split where the first server after the middle starts, or else where the one it
	// is in starts.
	after, before := len(refs)/2, len(refs)/2
	for after > 0 && after < len(refs) && refs[after].Server == refs[after-1].Server {
		after++
	}
	for before > 0 && refs[before].Server == refs[before-1].Server {
		before--
	}
	mid := after
	if mid == len(refs) {
		mid = before
	}
	if mid == 0 || mid == len(refs) {
		go func() { out <- toolview.Directory(refs) }()
		return out
	}
	first := make(chan []toolview.DirEntry, 1)
	go func() { first <- toolview.Directory(refs[:mid]) }()
	go func() {
		second := toolview.Directory(refs[mid:])
		head := <-first
		// The halves join into the whole only where every server of the first
		// sorts before every one of the second, as a caller listing servers in
		// name order gives; else the whole is built again.
		if len(head) > 0 && len(second) > 0 && head[len(head)-1].Server >= second[0].Server {
			out <- toolview.Directory(refs)
			return
		}
		out <- append(head, second...)
	}()
	return out
}

// FromCatalog is the startup set of an already decoded catalog, with the instructions of
// the servers of entries (the entries of the cache file it was decoded from, as the
// session's project sees them: File.View; nil for none) that have tools in it.
func FromCatalog(cat *catalog.Catalog, entries map[string]*cache.Server) *Set {
	set := &Set{Tools: make([]Tool, len(cat.Entries))}
	last := ""
	for i := range cat.Entries {
		e := &cat.Entries[i]
		t := e.CacheTool()
		set.Tools[i] = Tool{Ref: e.Ref(), Name: e.Name, Payload: PayloadFor(e.Server, &t)}
		if entries == nil || e.Server == last {
			continue
		}
		last = e.Server
		if fe := entries[e.Server]; fe != nil && fe.Instructions != "" {
			if set.Instructions == nil {
				set.Instructions = map[string]string{}
			}
			set.Instructions[e.Server] = fe.Instructions
		}
	}
	return set
}

// Refs lists the set's tools.
func (s *Set) Refs() []catalog.ToolRef {
	out := make([]catalog.ToolRef, len(s.Tools))
	for i, t := range s.Tools {
		out[i] = t.Ref
	}
	return out
}

// Registered marks the set's tools that were registered at startup.
func (s *Set) Registered() map[catalog.ToolRef]bool {
	registered := make(map[catalog.ToolRef]bool, len(s.Tools))
	for _, t := range s.Tools {
		if _, not := s.Unregistered[t.Ref]; !not {
			registered[t.Ref] = true
		}
	}
	return registered
}

// Payloads is every server's pre-encoded payloads of a decoded cache file, with each
// tool's pin, as the startup file's payload section keeps them: of its text cleaned as the
// catalog cleans it (catalog.CleanTool), and without the tools the catalog leaves out
// (catalog.NameOffered). The pin is of the tool as the server sent it: that is what the
// user approved. Every project's private listings are kept under their project
// (FrameServer.Projects), so that starts in several projects do not take turns at
// rebuilding them, and a start picks its own (SetFrom). The listings are encoded on
// parallel goroutines (payloadsEach).
func Payloads(file *cache.File) map[string]*cache.FrameServer {
	servers := make(map[string]*cache.FrameServer, len(file.Servers))
	var jobs []payloadJob
	for name, e := range file.Servers {
		jobs = append(jobs, payloadJob{name: name, e: e, pins: true})
	}
	for project, entries := range file.Projects {
		for name, e := range entries {
			jobs = append(jobs, payloadJob{name: name, e: e, pins: true, project: project})
		}
	}
	payloadsEach(jobs)
	for i := range jobs {
		if j := &jobs[i]; j.project == "" {
			servers[j.name] = j.out
		}
	}
	for i := range jobs {
		j := &jobs[i]
		if j.project == "" {
			continue
		}
		fs := servers[j.name]
		if fs == nil {
			fs = &cache.FrameServer{} // no shared entry: to other projects it has none
			servers[j.name] = fs
		}
		if fs.Projects == nil {
			fs.Projects = map[string]*cache.FrameServer{}
		}
		fs.Projects[j.project] = j.out
	}
	return servers
}

// FromFile is the startup set of a decoded cache file for a start in project, as SetFrom
// gives it from the startup file's payloads, without building the catalog: the payloads
// of the usable servers' fresh entries as project sees them (File.View) are encoded on
// parallel goroutines, each tool's pin only for the servers pins pins (no other server's
// pin is looked at). It is the start after the cache changed under the startup file (or
// the file was removed): the catalog is built after ready.
func FromFile(file *cache.File, usable []*config.Server, project string, pins Pins, namer *catalog.Namer) (set *Set, stale []string, ok bool) {
	view := file.View(project)
	var jobs []payloadJob
	for _, s := range usable {
		if e := view[s.Name]; e != nil && e.Fingerprint == s.Fingerprint() {
			jobs = append(jobs, payloadJob{name: s.Name, e: e, pins: pins.of(s.Name) != nil, allowed: s.ToolAllowed})
		}
	}
	payloadsEach(jobs)
	servers := make(map[string]*cache.FrameServer, len(jobs))
	for i := range jobs {
		servers[jobs[i].name] = jobs[i].out
	}
	// The view is the project's already: "" picks each listing as it is.
	set, stale, ok = setFrom(servers, usable, "", pins, namer, false, nil)
	if ok {
		set.Fast = true
	}
	return set, stale, ok
}

// FromListings is FromFile for a cache file read by its lines (cache.ReadListings): each
// usable server's entry is read on a parallel goroutine, and only those of the usable
// servers (every other entry is only checked to be the lines the reader found for it,
// cache.Listing.Check). The payloads are not made here but as the frames are built (Tool.AppendPayload:
// no buffer of every payload before the frames), from tools that point into the listings'
// file bytes. ok is false when an entry is not laid out as the bridge writes it: the
// caller then decodes the file.
func FromListings(l *cache.Listings, usable []*config.Server, project string, pins Pins, namer *catalog.Namer) (set *Set, stale []string, ok bool) {
	view := l.View(project)
	var jobs []payloadJob
	read := make(map[string]bool, len(usable))
	for _, s := range usable {
		if e, found := view[s.Name]; found {
			jobs = append(jobs, payloadJob{name: s.Name, listing: e, fingerprint: s.Fingerprint(), pins: pins.of(s.Name) != nil, allowed: s.ToolAllowed})
			read[s.Name] = true
		}
	}
	// The entries not read are checked to be what the reader found: else the decoder
	// may read the file otherwise, read entries included.
	for _, e := range l.Others(project, func(name string) bool { return read[name] }) {
		jobs = append(jobs, payloadJob{listing: e, check: true})
	}
	payloadsEach(jobs)
	servers := make(map[string]*cache.FrameServer, len(jobs))
	srcs := make(map[string][]source, len(jobs))
	for i := range jobs {
		if jobs[i].err != nil {
			return nil, nil, false
		}
		if jobs[i].out != nil {
			servers[jobs[i].name], srcs[jobs[i].name] = jobs[i].out, jobs[i].srcs
		}
	}
	set, stale, ok = setFrom(servers, usable, "", pins, namer, false, srcs)
	if ok {
		set.Fast = true
	}
	return set, stale, ok
}

// payloadJob is one listing to encode: server name's entry e (of project, "" for the
// shared one), with each tool's pin when pins, leaving out the tools allowed refuses (nil:
// none); out is the result.
type payloadJob struct {
	name    string
	e       *cache.Server
	pins    bool
	project string
	allowed func(tool string) (bool, string)
	out     *cache.FrameServer
	// An entry not read yet (FromListings): e is read from it, and out stays nil unless
	// it has fingerprint; err is what reading it gave.
	listing     cache.Listing
	fingerprint string
	err         error
	// check: the listing is not read, only checked (cache.Listing.Check).
	check bool
	// srcs are, for a listing read (e nil), its tools cleaned, by index: out's payloads
	// are left to be made (nil).
	srcs []source
}

// payloadsEach encodes every job's listing, on up to GOMAXPROCS goroutines, each taking
// the next listing as it finishes one (listings differ a lot in size).
func payloadsEach(jobs []payloadJob) {
	parallel.Each(len(jobs), min(runtime.GOMAXPROCS(0), len(jobs)), func(i int) { jobs[i].out = payloadsOf(&jobs[i]) })
}

// payloadsOf is the payloads of job j's listing.
func payloadsOf(j *payloadJob) *cache.FrameServer {
	if j.check {
		j.err = j.listing.Check()
		return nil
	}
	e, lazy := j.e, j.e == nil
	var compact []bool // of e.Tools, when read here
	if lazy {
		if e, compact, j.err = j.listing.ReadCompact(); j.err != nil || e.Fingerprint != j.fingerprint {
			return nil
		}
		j.srcs = make([]source, 0, len(e.Tools))
	}
	fs := &cache.FrameServer{Fingerprint: e.Fingerprint, Instructions: e.Instructions, Tools: make([]cache.FrameTool, 0, len(e.Tools))}
	// The payloads share buffers, each sized for the tools still to encode when the last
	// one ran out: growing one would copy the payloads before.
	var buf []byte
	left := 0 // payloadRoom of the tools after i
	if !lazy {
		for i := range e.Tools {
			left += payloadRoom(&e.Tools[i])
		}
	}
	for i := range e.Tools {
		t := &e.Tools[i]
		room := 0
		if !lazy {
			room = payloadRoom(t)
			left -= room
		}
		if !catalog.NameOffered(t.Name) {
			continue
		}
		if j.allowed != nil {
			if ok, _ := j.allowed(t.Name); !ok {
				continue
			}
		}
		ft := cache.FrameTool{Name: t.Name}
		if j.pins {
			ft.Pin = trust.ToolFingerprint(t)
		}
		if lazy {
			// Cleaning returns the tool itself when nothing changes, the schemas the
			// reader found compact included.
			c := catalog.CleanTool(t)
			j.srcs = append(j.srcs, source{tool: c, compact: compact[i] && c == t})
		} else {
			if cap(buf)-len(buf) < room {
				buf = make([]byte, 0, room+left)
			}
			at := len(buf)
			buf = appendPayload(buf, j.name, catalog.CleanTool(t))
			ft.Payload = extension.ToolPayload(buf[at:len(buf):len(buf)])
		}
		fs.Tools = append(fs.Tools, ft)
	}
	return fs
}

// ToolFromPayload recovers what routing, search and validation need of a tool from its
// startup payload (see PayloadFor).
func ToolFromPayload(name string, payload extension.ToolPayload) cache.Tool {
	t, _ := payload.Decode()
	return cache.Tool{Name: name, Description: t.Description, InputSchema: cache.NormalizeSchema(t.Schema)}
}
