package cache

import (
	"bytes"
	"errors"
	"fmt"
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
const framesMagic = "mcp-bridge-startup 1"

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
	fmt.Fprintf(&b, "%s %d %d\n", framesMagic, stamp.Size, stamp.ModTime)
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
			b.WriteString(strconv.Quote(t.Name))
			b.WriteByte('\t')
			b.Write(t.Payload)
			b.WriteByte('\n')
		}
	}
	return writeAtomic(path, b.Bytes())
}

// ErrFramesStale reports a startup file made from another version of the cache file.
var ErrFramesStale = errors.New("startup file was made from another version of the tool cache")

// ReadFrames reads the startup file and checks that it was made from the cache version
// stamp. Payloads point into one buffer read from disk; callers must not modify them. A
// missing file gives an fs.ErrNotExist error; any other problem an error that says what.
func ReadFrames(path string, stamp Stamp) (map[string]*FrameServer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	line, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok {
		return nil, errors.New("startup file: no header")
	}
	if string(line) != fmt.Sprintf("%s %d %d", framesMagic, stamp.Size, stamp.ModTime) {
		if !bytes.HasPrefix(line, []byte(framesMagic+" ")) {
			return nil, errors.New("startup file: unknown format")
		}
		return nil, ErrFramesStale
	}
	servers := map[string]*FrameServer{}
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, []byte{'\n'})
		f := bytes.Split(line, []byte{'\t'})
		if len(f) != 4 || string(f[0]) != "S" {
			return nil, errors.New("startup file: damaged server line")
		}
		name, err := strconv.Unquote(string(f[1]))
		if err != nil {
			return nil, errors.New("startup file: damaged server name")
		}
		n, err := strconv.Atoi(string(f[3]))
		if err != nil || n < 0 {
			return nil, errors.New("startup file: damaged tool count")
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
			s.Tools = append(s.Tools, FrameTool{Name: tool, Payload: payload})
		}
		servers[name] = s
	}
	return servers, nil
}

// RemoveFrames deletes the startup file (a missing file is fine).
func RemoveFrames(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
