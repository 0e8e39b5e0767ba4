package cache

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
)

// The startup file sits next to the cache file and holds, per server, each tool's
// registration payload already encoded, so the bridge can register thousands of cached
// tools inside the host's 250 ms window without decoding the cache (decoding 2,000 tools
// costs 5 ms on a warm heap and about three times that in a fresh process). It is derived
// data: it records which version of the cache file it was made from (size and modification
// time), and a reader that finds it missing, damaged or made from another version falls
// back to the cache file, which stays the source of truth.
//
// Version 2 adds a CRC-32C of everything after the header line, so a file damaged on disk
// (a torn write, a flipped bit, an editor) is recognised as damaged instead of handing the
// host a broken frame.
const framesMagic = "mcp-bridge-startup 2"

// framesFamily starts the header of every version of the startup file; a header of
// another version is stale, not damaged.
const framesFamily = "mcp-bridge-startup "

// minToolLine is the shortest tool line a startup file can hold: an empty quoted name, a
// tab, the shortest payload and a newline. It bounds the tool count a server line may claim.
const minToolLine = len(`""`) + 1 + len(`""`) + 1

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

// FrameServer is one server's tools in the startup file.
type FrameServer struct {
	Fingerprint string
	Tools       []FrameTool
}

// FrameTool is one tool: its MCP name and an opaque one-line payload.
type FrameTool struct {
	Name    string
	Payload []byte
}

// WriteFrames writes the startup file for the cache version stamp, atomically (0600).
// Payloads must not contain a newline.
func WriteFrames(path string, stamp Stamp, servers map[string]*FrameServer) error {
	var b bytes.Buffer
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := servers[n]
		if strings.ContainsAny(s.Fingerprint, "\t\n") {
			return fmt.Errorf("startup file: bad fingerprint for server %q", n)
		}
		fmt.Fprintf(&b, "S\t%s\t%s\t%d\n", strconv.Quote(n), s.Fingerprint, len(s.Tools))
		for _, t := range s.Tools {
			if bytes.IndexByte(t.Payload, '\n') >= 0 {
				return fmt.Errorf("startup file: payload of %s/%s spans lines", n, t.Name)
			}
			if !payloadShape(t.Payload) {
				return fmt.Errorf("startup file: payload of %s/%s is not a run of JSON members", n, t.Name)
			}
			b.WriteString(strconv.Quote(t.Name))
			b.WriteByte('\t')
			b.Write(t.Payload)
			b.WriteByte('\n')
		}
	}
	body := b.Bytes()
	out := make([]byte, 0, len(body)+64)
	out = fmt.Appendf(out, "%s %d %d %08x\n", framesMagic, stamp.Size, stamp.ModTime, crc32.Checksum(body, crcTable))
	return writeAtomic(path, append(out, body...))
}

// ErrFramesStale reports a startup file made from another version of the cache file.
var ErrFramesStale = errors.New("startup file was made from another version of the tool cache")

// ReadFrames reads the startup file and checks that it was made from the cache version
// stamp. Payloads point into one buffer read from disk; callers must not modify them. A
// missing file gives an fs.ErrNotExist error, a file made from another cache version or by
// another format version ErrFramesStale, and a damaged one an error that says what; the
// startup file is derived data, so the caller discards a damaged one and rebuilds it.
func ReadFrames(path string, stamp Stamp) (map[string]*FrameServer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	line, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok {
		return nil, errors.New("startup file: no header")
	}
	if !bytes.HasPrefix(line, []byte(framesFamily)) {
		return nil, errors.New("startup file: unknown format")
	}
	want := fmt.Sprintf("%s %d %d ", framesMagic, stamp.Size, stamp.ModTime)
	if !bytes.HasPrefix(line, []byte(want)) {
		return nil, ErrFramesStale
	}
	sum, err := strconv.ParseUint(string(line[len(want):]), 16, 32)
	if err != nil || len(line)-len(want) != 8 {
		return nil, errors.New("startup file: damaged header")
	}
	if crc32.Checksum(rest, crcTable) != uint32(sum) {
		return nil, errors.New("startup file: checksum mismatch (the file was damaged)")
	}
	return parseFrames(rest)
}

// parseFrames decodes the body of a startup file. Every count it reads is checked against
// what the rest of the file can hold before anything is allocated for it, and every
// payload is checked for the shape the bridge splices into a frame.
func parseFrames(rest []byte) (map[string]*FrameServer, error) {
	servers := map[string]*FrameServer{}
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte{'\n'})
		f := bytes.Split(line, []byte{'\t'})
		if len(f) != 4 || string(f[0]) != "S" {
			return nil, errors.New("startup file: damaged server line")
		}
		name, err := strconv.Unquote(string(f[1]))
		if err != nil {
			return nil, errors.New("startup file: damaged server name")
		}
		if _, dup := servers[name]; dup {
			return nil, fmt.Errorf("startup file: server %q listed twice", name)
		}
		n, err := strconv.Atoi(string(f[3]))
		if err != nil || n < 0 || n > (len(rest)+1)/minToolLine {
			return nil, fmt.Errorf("startup file: damaged tool count for server %q", name)
		}
		s := &FrameServer{Fingerprint: string(f[2]), Tools: make([]FrameTool, 0, n)}
		for i := 0; i < n; i++ {
			if len(rest) == 0 {
				return nil, errors.New("startup file: truncated")
			}
			line, rest, _ = bytes.Cut(rest, []byte{'\n'})
			q, payload, ok := bytes.Cut(line, []byte{'\t'})
			if !ok {
				return nil, errors.New("startup file: damaged tool line")
			}
			tool, err := strconv.Unquote(string(q))
			if err != nil {
				return nil, errors.New("startup file: damaged tool name")
			}
			if !payloadShape(payload) {
				return nil, fmt.Errorf("startup file: damaged payload of %s/%s", name, tool)
			}
			s.Tools = append(s.Tools, FrameTool{Name: tool, Payload: payload})
		}
		servers[name] = s
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
