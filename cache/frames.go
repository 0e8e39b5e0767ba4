package cache

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The startup file sits next to the cache file and holds what the bridge needs to register
// thousands of cached tools inside the host's 250 ms window without decoding the cache
// (decoding is most of a start's time, more so in a fresh process; BENCHMARKS.md has the
// startup figures). It is derived data: it records which version of the cache file it was made
// from (size and modification time), and a reader that finds it missing, damaged or made
// from another version falls back to the cache file, which stays the source of truth.
//
// It has two sections, each with its own length and CRC-32C, so a reader reads only the
// one it uses and a file damaged on disk (a flipped bit, an editor) is recognised as
// damaged instead of handing the host a broken frame:
//
//   - the sent section: the bytes one bridge configuration sent to the host at startup,
//     exactly as sent, under a key that identifies everything they were built from (the
//     bridge computes it; this package only compares it). A start whose key matches
//     copies them to the host and does nothing else;
//   - the payload section: per server, its fingerprint, the instructions its MCP
//     initialize gave and each tool's registration payload already encoded, with the
//     tool's pin (the fingerprint an approval pins it by), from which a start with another
//     configuration builds its frames and holds back the tools that differ from what the
//     user approved. A server's private listings (File.Projects) follow its shared one,
//     each under its project, so that a start builds its frames from the listings its
//     project sees (FrameServer.In) and never from another project's.
//
// Version 3 added the sent section; version 4 holds payloads of sanitized server text
// (catalog.CleanTool), so a payload written from the raw text is not sent, the tools'
// pins and the servers' instructions (registered as namespace text); version 5 the
// private listings, which a reader of version 4 would take for nobody's. A file of another
// version is stale, not damaged.
const framesMagic = "mcp-bridge-startup 5"

// framesFamily starts the header of every version of the startup file; a header of
// another version is stale, not damaged.
const framesFamily = "mcp-bridge-startup "

// noSentKey is the key of an empty sent section.
const noSentKey = "-"

// maxSentHead bounds the header and the sent section's line: a reader reads this much
// to find the sections.
const maxSentHead = 32 << 10

// minToolLine is the shortest tool line a startup file can hold: an empty quoted name, a
// tab, an empty pin, a tab, the shortest payload and a newline. It bounds the tool count a
// server line may claim.
const minToolLine = len(`""`) + 1 + 1 + len(`""`) + 1

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// FramesPath is the startup file that belongs to the cache file at cachePath.
func FramesPath(cachePath string) string {
	return strings.TrimSuffix(cachePath, ".json") + ".startup"
}

// Stamp identifies one version of a file.
type Stamp struct {
	Size    int64
	ModTime int64 // nanoseconds since the epoch
}

// StampOf returns the stamp of the file at path.
func StampOf(path string) (Stamp, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Stamp{}, err
	}
	return Stamp{Size: st.Size(), ModTime: st.ModTime().UnixNano()}, nil
}

// FrameServer is one server's tools in the startup file: from its shared entry (an empty
// Fingerprint when it has none) and, in Projects, from its private listings.
type FrameServer struct {
	Fingerprint string
	// Instructions are the cache entry's Instructions (what the server's MCP initialize
	// said about using it).
	Instructions string
	Tools        []FrameTool
	// Projects are the server's private listings by project (File.Projects' keys); their
	// own Projects are nil.
	Projects map[string]*FrameServer
}

// In is the server's tools as a start in project sees them (File.View): project's
// private listing, else the shared one. A nil s gives nil.
func (s *FrameServer) In(project string) *FrameServer {
	if s == nil {
		return nil
	}
	if p := s.Projects[project]; p != nil && project != "" {
		return p
	}
	return s
}

// FrameTool is one tool: its MCP name, an opaque one-line payload and its pin (the
// tool's fingerprint as an approval pins it: letters and digits, or empty).
type FrameTool struct {
	Name    string
	Payload []byte
	Pin     string
}

// Sent is the startup file's sent section: bytes sent to the host at one start, opaque to
// this package.
type Sent struct {
	// Key identifies everything Frames were built from: a non-empty run of letters and
	// digits (a hex digest).
	Key string
	// Meta is a little data the bridge keeps beside the frames (at most a few KiB).
	Meta string
	// Frames are the bytes sent.
	Frames []byte

	release func() // unmaps Frames (ReadSent)
}

// WriteStartup writes the startup file for the cache version stamp, atomically (0600):
// the sent section (none when sent is nil) and every server's payloads. Payloads must not
// contain a newline.
func WriteStartup(path string, stamp Stamp, sent *Sent, servers map[string]*FrameServer) error {
	var b bytes.Buffer
	names := slices.Sorted(maps.Keys(servers))
	for _, n := range names {
		s := servers[n]
		if err := writeFrameServer(&b, "S", strconv.Quote(n), n, s); err != nil {
			return err
		}
		for _, project := range slices.Sorted(maps.Keys(s.Projects)) {
			p := s.Projects[project]
			if p == nil || project == "" {
				continue
			}
			if err := writeFrameServer(&b, "R", strconv.Quote(project), n, p); err != nil {
				return err
			}
		}
	}
	body := b.Bytes()
	key, meta, frames := noSentKey, "", []byte(nil)
	if sent != nil {
		if !validKey(sent.Key) {
			return errors.New("startup file: the sent section's key is not a run of letters and digits")
		}
		key, meta, frames = sent.Key, sent.Meta, sent.Frames
	}
	head := fmt.Appendf(nil, "%s %d %d\nX\t%s\t%s\t%d\t%08x\n", framesMagic, stamp.Size, stamp.ModTime,
		key, strconv.Quote(meta), len(frames), crc32.Checksum(frames, crcTable))
	if len(head) > maxSentHead {
		return errors.New("startup file: the sent section's metadata is too long")
	}
	out := make([]byte, 0, len(head)+len(frames)+len(body)+32)
	out = append(append(append(out, head...), frames...), fmt.Appendf(nil, "P\t%d\t%08x\n", len(body), crc32.Checksum(body, crcTable))...)
	return writeAtomic(path, append(out, body...))
}

// writeFrameServer writes one listing of server n: its line (kind, then key: the quoted
// name of a shared listing, the quoted project of a private one) and its tools.
func writeFrameServer(b *bytes.Buffer, kind, key, n string, s *FrameServer) error {
	if strings.ContainsAny(s.Fingerprint, "\t\n") {
		return fmt.Errorf("startup file: bad fingerprint for server %q", n)
	}
	fmt.Fprintf(b, "%s\t%s\t%s\t%d", kind, key, s.Fingerprint, len(s.Tools))
	if s.Instructions != "" {
		b.WriteString("\t" + strconv.Quote(s.Instructions))
	}
	b.WriteByte('\n')
	for _, t := range s.Tools {
		if bytes.IndexByte(t.Payload, '\n') >= 0 {
			return fmt.Errorf("startup file: payload of %s/%s spans lines", n, t.Name)
		}
		if !payloadShape(t.Payload) {
			return fmt.Errorf("startup file: payload of %s/%s is not a run of JSON members", n, t.Name)
		}
		if t.Pin != "" && !validKey(t.Pin) {
			return fmt.Errorf("startup file: pin of %s/%s is not a run of letters and digits", n, t.Name)
		}
		b.WriteString(strconv.Quote(t.Name))
		b.WriteByte('\t')
		b.WriteString(t.Pin)
		b.WriteByte('\t')
		b.Write(t.Payload)
		b.WriteByte('\n')
	}
	return nil
}

// restampStartup carries the startup file at path over from the cache version from to
// the version to, for a rewrite of the cache that changed nothing the payload section is
// made from (SetProtocol): the payload section is kept byte for byte (its own checksum
// with it) under a header for to, so the next start builds its frames from it instead of
// decoding the whole cache. The sent section goes: its key is over the cache version, so
// no start could use it. A file that was not made from from (missing, stale, damaged) is
// left as it is. The caller holds the cache's lock, so from is the version just replaced.
func restampStartup(path string, from, to Stamp) error {
	f, h, _, err := readHead(path, from)
	if err != nil {
		return err
	}
	defer f.Close()
	off := h.sentOff + h.sentLen
	payloads := make([]byte, h.size-off)
	if _, err := f.ReadAt(payloads, off); err != nil {
		return fmt.Errorf("startup file: reading the payload section: %w", err)
	}
	if !bytes.HasPrefix(payloads, []byte("P\t")) {
		return errors.New("startup file: damaged payload section header")
	}
	head := fmt.Appendf(nil, "%s %d %d\nX\t%s\t%s\t0\t%08x\n", framesMagic, to.Size, to.ModTime,
		noSentKey, strconv.Quote(""), crc32.Checksum(nil, crcTable))
	return writeAtomic(path, append(head, payloads...))
}

// validKey reports whether k is a non-empty run of ASCII letters and digits.
func validKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// ErrFramesStale reports a startup file made from another version of the cache file.
var ErrFramesStale = errors.New("startup file was made from another version of the tool cache")

// ErrNoSent reports a startup file without a sent section.
var ErrNoSent = errors.New("startup file holds no sent section")

// startupHead is what the first lines of a startup file say.
type startupHead struct {
	key, meta string
	sentOff   int64 // where the sent section's bytes start
	sentLen   int64
	sentSum   uint32
	size      int64 // the whole file's
}

// readHead opens the startup file, checks that it was made from the cache version stamp
// and reads where its sections are. head holds the file's first bytes (up to
// maxSentHead).
func readHead(path string, stamp Stamp) (f *os.File, h startupHead, head []byte, err error) {
	f, err = os.Open(path)
	if err != nil {
		return nil, h, nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
			f = nil
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, h, nil, err
	}
	h.size = st.Size()
	head = make([]byte, min(h.size, maxSentHead))
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, h, nil, err
	}
	line, rest, ok := bytes.Cut(head, []byte{'\n'})
	if !ok {
		return nil, h, nil, errors.New("startup file: no header")
	}
	if !bytes.HasPrefix(line, []byte(framesFamily)) {
		return nil, h, nil, errors.New("startup file: unknown format")
	}
	version, ok := bytes.CutPrefix(line, []byte(framesMagic+" "))
	if !ok {
		return nil, h, nil, ErrFramesStale
	}
	var size, mtime int64
	if n, err := fmt.Sscanf(string(version), "%d %d", &size, &mtime); n != 2 || err != nil || string(version) != fmt.Sprintf("%d %d", size, mtime) {
		return nil, h, nil, errors.New("startup file: damaged header")
	}
	if size != stamp.Size || mtime != stamp.ModTime {
		return nil, h, nil, ErrFramesStale
	}
	x, _, ok := bytes.Cut(rest, []byte{'\n'})
	if !ok {
		return nil, h, nil, errors.New("startup file: damaged sent section header")
	}
	fl := bytes.Split(x, []byte{'\t'})
	if len(fl) != 5 || string(fl[0]) != "X" || len(fl[4]) != 8 {
		return nil, h, nil, errors.New("startup file: damaged sent section header")
	}
	h.key = string(fl[1])
	if h.meta, err = strconv.Unquote(string(fl[2])); err != nil {
		return nil, h, nil, errors.New("startup file: damaged sent section header")
	}
	h.sentOff = int64(len(line) + 1 + len(x) + 1)
	h.sentLen, err = strconv.ParseInt(string(fl[3]), 10, 64)
	if err != nil || h.sentLen < 0 || h.sentLen > h.size-h.sentOff {
		return nil, h, nil, errors.New("startup file: damaged sent section length")
	}
	sum, err := strconv.ParseUint(string(fl[4]), 16, 32)
	if err != nil {
		return nil, h, nil, errors.New("startup file: damaged sent section header")
	}
	h.sentSum = uint32(sum)
	return f, h, head, nil
}

// ReadSent reads the startup file's sent section, checking that the file was made from
// the cache version stamp. It reads the file's head and maps the section's bytes (where
// the system can; else it reads them) as the returned Frames, and nothing else: the file
// is replaced, never rewritten in place, so the mapping stays valid until Release. A
// fresh process touching new memory for them page by page costs more than the bytes. Errors are as ReadFrames gives them, and
// ErrNoSent when the file has no sent section.
func ReadSent(path string, stamp Stamp) (*Sent, error) {
	f, h, _, err := readHead(path, stamp)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if h.key == noSentKey {
		return nil, ErrNoSent
	}
	if !validKey(h.key) {
		return nil, errors.New("startup file: damaged sent section key")
	}
	frames, release, err := readSection(f, h.sentOff, h.sentLen)
	if err != nil {
		return nil, fmt.Errorf("startup file: reading the sent section: %w", err)
	}
	if crc32.Checksum(frames, crcTable) != h.sentSum {
		release()
		return nil, errors.New("startup file: checksum mismatch in the sent section (the file was damaged)")
	}
	return &Sent{Key: h.key, Meta: h.meta, Frames: frames, release: release}, nil
}

// Release gives back the memory of s.Frames, which must not be used afterwards. Frames
// may be a mapping of the file rather than a copy, and a mapping counts in the process's
// resident memory until it is released.
func (s *Sent) Release() {
	if s.release != nil {
		s.release()
		s.release = nil
	}
	s.Frames = nil
}

// readAtSection reads n bytes at off from f into a new buffer (readSection where the file
// cannot be mapped).
func readAtSection(f *os.File, off, n int64) ([]byte, func(), error) {
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil, nil, err
	}
	return buf, func() {}, nil
}

// ReadFrames reads the startup file's payload section and checks that the file was made
// from the cache version stamp. Payloads point into one buffer read from disk; callers
// must not modify them. A missing file gives an fs.ErrNotExist error, a file made from
// another cache version or by another format version ErrFramesStale, and a damaged one an
// error that says what; the startup file is derived data, so the caller discards a
// damaged one and rebuilds it.
func ReadFrames(path string, stamp Stamp) (map[string]*FrameServer, error) {
	servers, _, err := readFrames(path, stamp, readAtSection)
	return servers, err
}

// MapFrames is ReadFrames with the payload section mapped (where the system can; else
// read), as ReadSent maps the sent section: a start that builds its frames from the
// payloads reads each of them once, and a fresh process touching new memory for a copy
// costs more than the bytes. The payloads point into the mapping, which stays valid
// until release (the file is replaced, never rewritten in place): nothing of them may be
// used after release, so whoever keeps any of it past that copies it. A mapping counts in
// the process's resident memory until it is released.
func MapFrames(path string, stamp Stamp) (servers map[string]*FrameServer, release func(), err error) {
	return readFrames(path, stamp, readSection)
}

// readFrames reads the payload section with read (readAtSection or readSection) and
// parses it; release gives the section's bytes back (nil on error).
func readFrames(path string, stamp Stamp, read func(f *os.File, off, n int64) ([]byte, func(), error)) (map[string]*FrameServer, func(), error) {
	f, h, _, err := readHead(path, stamp)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	off := h.sentOff + h.sentLen
	data, release, err := read(f, off, h.size-off)
	if err != nil {
		return nil, nil, fmt.Errorf("startup file: reading the payload section: %w", err)
	}
	servers, err := parseSection(data)
	if err != nil {
		release()
		return nil, nil, err
	}
	return servers, release, nil
}

// parseSection checks the payload section data (its header line, then the body) and
// parses it.
func parseSection(data []byte) (map[string]*FrameServer, error) {
	line, rest, ok := bytes.Cut(data, []byte{'\n'})
	fl := bytes.Split(line, []byte{'\t'})
	if !ok || len(fl) != 3 || string(fl[0]) != "P" || len(fl[2]) != 8 {
		return nil, errors.New("startup file: damaged payload section header")
	}
	n, err := strconv.Atoi(string(fl[1]))
	if err != nil || n != len(rest) {
		return nil, errors.New("startup file: damaged payload section length")
	}
	sum, err := strconv.ParseUint(string(fl[2]), 16, 32)
	if err != nil {
		return nil, errors.New("startup file: damaged payload section header")
	}
	// The checksum is computed while the section is parsed (parseFrames reads any bytes
	// safely); a mismatch discards what was parsed.
	sumOK := make(chan bool, 1)
	go func() { sumOK <- crc32.Checksum(rest, crcTable) == uint32(sum) }()
	servers, err := parseFrames(rest)
	if !<-sumOK {
		return nil, errors.New("startup file: checksum mismatch (the file was damaged)")
	}
	return servers, err
}

// parseFrames decodes the body of a startup file. Every count it reads is checked against
// what the rest of the file can hold before anything is allocated for it, and every
// payload is checked for the shape the bridge splices into a frame.
func parseFrames(rest []byte) (map[string]*FrameServer, error) {
	servers := map[string]*FrameServer{}
	var last *FrameServer // the server of the last S line, whose private listings follow it
	lastName := ""
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte{'\n'})
		f := bytes.Split(line, []byte{'\t'})
		if len(f) != 4 && len(f) != 5 || string(f[0]) != "S" && string(f[0]) != "R" {
			return nil, errors.New("startup file: damaged server line")
		}
		key, err := strconv.Unquote(string(f[1]))
		if err != nil {
			return nil, errors.New("startup file: damaged server name")
		}
		name := key
		if string(f[0]) == "R" {
			if last == nil {
				return nil, errors.New("startup file: a private listing before any server")
			}
			name = lastName
			if _, dup := last.Projects[key]; dup || key == "" {
				return nil, fmt.Errorf("startup file: damaged private listing of server %q", name)
			}
		} else if _, dup := servers[name]; dup {
			return nil, fmt.Errorf("startup file: server %q listed twice", name)
		}
		n, err := strconv.Atoi(string(f[3]))
		if err != nil || n < 0 || n > (len(rest)+1)/minToolLine {
			return nil, fmt.Errorf("startup file: damaged tool count for server %q", name)
		}
		s := &FrameServer{Fingerprint: string(f[2]), Tools: make([]FrameTool, 0, n)}
		if len(f) == 5 {
			if s.Instructions, err = strconv.Unquote(string(f[4])); err != nil {
				return nil, fmt.Errorf("startup file: damaged instructions of server %q", name)
			}
		}
		for i := 0; i < n; i++ {
			if len(rest) == 0 {
				return nil, errors.New("startup file: truncated")
			}
			line, rest, _ = bytes.Cut(rest, []byte{'\n'})
			q, after, ok := bytes.Cut(line, []byte{'\t'})
			pin, payload, ok2 := bytes.Cut(after, []byte{'\t'})
			if !ok || !ok2 || (len(pin) > 0 && !validKey(string(pin))) {
				return nil, errors.New("startup file: damaged tool line")
			}
			tool, err := strconv.Unquote(string(q))
			if err != nil {
				return nil, errors.New("startup file: damaged tool name")
			}
			if !payloadShape(payload) {
				return nil, fmt.Errorf("startup file: damaged payload of %s/%s", name, tool)
			}
			s.Tools = append(s.Tools, FrameTool{Name: tool, Payload: payload, Pin: string(pin)})
		}
		if string(f[0]) == "R" {
			if last.Projects == nil {
				last.Projects = map[string]*FrameServer{}
			}
			last.Projects[key] = s
			continue
		}
		servers[name] = s
		last, lastName = s, name
	}
	return servers, nil
}

// payloadShape reports whether p looks like what follows the name in a register_tool
// frame: JSON object members, starting with a quoted key and not ending in a comma.
// Whether the members are valid JSON is the checksum's job; this catches a file that was
// written whole but by a broken writer, at the cost of two byte comparisons.
func payloadShape(p []byte) bool {
	return len(p) >= 2 && p[0] == '"' && p[len(p)-1] != ',' && p[len(p)-1] != '\\'
}

// RemoveFrames deletes the startup file (a missing file is fine).
func RemoveFrames(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
