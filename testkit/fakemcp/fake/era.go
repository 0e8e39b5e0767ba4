package fake

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// The MCP era a stdio fakemcp speaks. mcp-go's server answers both eras; -discover makes
// it a server of one era, or one that misbehaves on the modern era's probe:
//
//	legacy   server/discover answered with method-not-found (a 2025-11-25 server)
//	exit     the process exits (status 5) on server/discover
//	hang     server/discover is never answered
//	garbage  server/discover answered with an empty result
//	claim    server/discover answered as a modern server answers, then every request
//	         before initialize refused with invalid-request, as a strict legacy server
//	         does
//	modern   initialize answered with method-not-found (a 2026-07-28-only server)
var discoverModes = []string{"legacy", "exit", "hang", "garbage", "claim", "modern"}

const exitDiscover = 5 // -discover exit

// lockedWriter serializes whole writes to w: the server's messages and the filter's own
// answers never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// eraFilter reads the client's lines from in, answers or drops what mode decides, and
// passes the rest to the returned reader (the server's input).
func eraFilter(o *options, in io.Reader, out io.Writer) io.Reader {
	mode := o.discover
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
		initialized := false
		for sc.Scan() {
			line := sc.Bytes()
			var m wireMessage
			_ = json.Unmarshal(line, &m)
			if answer := eraAnswer(o, mode, m, initialized); answer != nil {
				if len(answer) > 0 {
					_, _ = out.Write(append(answer, '\n'))
				}
				continue
			}
			if m.Method == "initialize" {
				initialized = true
			}
			if _, err := pw.Write(append(append([]byte{}, line...), '\n')); err != nil {
				return
			}
		}
		err := sc.Err()
		if err == nil {
			err = io.EOF
		}
		_ = pw.CloseWithError(err)
	}()
	return pr
}

// eraAnswer is what mode answers to m: nil passes it to the server, an empty slice drops
// it.
func eraAnswer(o *options, mode string, m wireMessage, initialized bool) []byte {
	isRequest := m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case !isRequest:
		return nil
	case m.Method == "server/discover":
		switch mode {
		case "legacy":
			return rpcError(m.ID, -32601, "Method not found: server/discover")
		case "exit":
			fmt.Fprintln(o.stderr, "fakemcp: unknown method server/discover, exiting")
			o.exit(exitDiscover)
			return []byte{}
		case "hang":
			return []byte{}
		case "garbage":
			return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`)
		case "claim":
			return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"1.0.0"}}}}`)
		}
	case m.Method == "initialize" && mode == "modern":
		return rpcError(m.ID, -32601, "Method not found: initialize")
	case mode == "claim" && !initialized && m.Method != "initialize":
		return rpcError(m.ID, -32600, "Invalid request: not initialized")
	}
	return nil
}

func rpcError(id json.RawMessage, code int, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return b
}

// checkDiscoverFlag validates -discover.
func checkDiscoverFlag(o *options) error {
	if o.discover == "" {
		return nil
	}
	for _, m := range discoverModes {
		if m == o.discover {
			if o.httpAddr != "" || o.sseAddr != "" {
				return errors.New("-discover is for stdio only")
			}
			return nil
		}
	}
	return fmt.Errorf("-discover wants one of %v, got %q", discoverModes, o.discover)
}

// noteStart appends one line to the -starts file: tests count the processes started.
func noteStart(path string, pid int) error {
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(fmt.Sprintf("%d\n", pid))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
