package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/testutil"
)

// npmBin finds an npm-installed MCP server through MCP_NPM_BIN (a directory of npm bin
// links, e.g. .ci/node/node_modules/.bin). Missing, the test fails under CI=true and is
// skipped otherwise.
func npmBin(t *testing.T, name string) string {
	t.Helper()
	dir := os.Getenv("MCP_NPM_BIN")
	why := "MCP_NPM_BIN is not set"
	if dir != "" {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		why = fmt.Sprintf("%s not found in MCP_NPM_BIN=%s", name, dir)
	}
	msg := why + "; install the npm servers (cd .ci/node && npm install) and set MCP_NPM_BIN=$PWD/.ci/node/node_modules/.bin"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// startEverything runs @modelcontextprotocol/server-everything in mode (streamableHttp or
// sse) on a free loopback port, forced onto 127.0.0.1 by .ci/loopback.cjs, and returns its
// base url once it accepts connections.
func startEverything(t *testing.T, mode string) string {
	t.Helper()
	bin := npmBin(t, "mcp-server-everything")
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	preload := filepath.Join(root, ".ci", "loopback.cjs")
	port := freePort(t)
	cmd := exec.Command(bin, mode)
	opts := strings.TrimSpace(os.Getenv("NODE_OPTIONS") + ` --require "` + preload + `"`)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "NODE_OPTIONS="+opts)
	out := &testutil.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("server-everything %s output:\n%s", mode, out.String())
		}
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	ctx := ctxGuard(t)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("server-everything %s exited before listening:\n%s", mode, out.String())
		case <-ctx.Done():
			t.Fatalf("server-everything %s never listened on %s:\n%s", mode, addr, out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if bound := listenAddrs(t, port); len(bound) != 1 || bound[0] != "127.0.0.1" {
		t.Fatalf("server-everything listens on %v, want only 127.0.0.1 (loopback.cjs not applied?)", bound)
	}
	return "http://" + addr
}

// listenAddrs lists the local IPv4/IPv6 addresses with a TCP socket listening on port,
// from /proc/net/tcp{,6}.
func listenAddrs(t *testing.T, port int) []string {
	t.Helper()
	var out []string
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 4 || fields[3] != "0A" { // 0A = LISTEN
				continue
			}
			host, p, ok := strings.Cut(fields[1], ":")
			if !ok {
				continue
			}
			if n, err := strconv.ParseUint(p, 16, 32); err != nil || int(n) != port {
				continue
			}
			out = append(out, procAddr(host))
		}
		fh.Close()
	}
	return out
}

// procAddr decodes a /proc/net/tcp address (little-endian 32-bit words).
func procAddr(h string) string {
	b := make(net.IP, 0, len(h)/2)
	for i := 0; i+8 <= len(h); i += 8 {
		w, _ := strconv.ParseUint(h[i:i+8], 16, 32)
		b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
	}
	if v4 := b.To4(); v4 != nil {
		return v4.String()
	}
	return b.String()
}

// The real reference server, bridged end to end: list its tools into the cache, then in a
// new session search for echo and call it.
func TestServerEverythingHTTP(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		entry func(base string) map[string]any
		want  string // transport that must be used
	}{
		{"streamableHttp", func(base string) map[string]any {
			return map[string]any{"url": base + "/mcp", "transport": "streamable-http"}
		}, "streamable-http"},
		{"sse", func(base string) map[string]any {
			return map[string]any{"url": base + "/sse", "transport": "sse"}
		}, "sse"},
		// url only: the server answers the streamable POST with 404, so the bridge falls back.
		{"sse", func(base string) map[string]any { return map[string]any{"url": base + "/sse"} }, "sse"},
	} {
		name := tc.mode
		if _, ok := tc.entry("")["transport"]; !ok {
			name += "-url-only"
		}
		t.Run(name, func(t *testing.T) {
			base := startEverything(t, tc.mode)
			e := newTestEnv(t)
			entry := tc.entry(base)
			entry["connectTimeout"] = 30
			e.write(map[string]any{"everything": entry}, nil)
			first := e.bridge(extension.GenNew)
			if _, errs := first.Refresh(ctxGuard(t), []string{"everything"}); len(errs) > 0 {
				t.Fatal(errs)
			}
			if tr := e.srv(first, "everything").Status().Transport; string(tr) != tc.want {
				t.Fatalf("transport %q, want %s", tr, tc.want)
			}
			first.Close(ctxGuard(t))

			b := e.bridge(extension.GenNew)
			res := runSearch(t, b, map[string]any{"query": "echo back a message", "limit": 3})
			if res.IsError {
				t.Fatalf("search failed: %s", textOf(t, res))
			}
			const tool = "mcp__everything__echo"
			found := false
			for _, n := range res.ActivateTools {
				found = found || n == tool
			}
			if !found {
				t.Fatalf("search did not load %s: %v\n%s", tool, res.ActivateTools, textOf(t, res))
			}
			args, _ := json.Marshal(map[string]any{"message": "hello from zot"})
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			got := b.CallTool(ctx, extension.ToolCall{ID: "1", Name: tool, Args: args})
			if got.IsError || !strings.Contains(textOf(t, got), "Echo: hello from zot") {
				t.Fatalf("echo: error=%v %q", got.IsError, textOf(t, got))
			}
		})
	}
}
