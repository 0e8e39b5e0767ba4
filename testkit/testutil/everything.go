package testutil

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// StartEverything runs the npm @modelcontextprotocol/server-everything in mode
// ("streamableHttp" or "sse") on a free loopback port, forced onto 127.0.0.1 by
// .ci/loopback.cjs, and returns its base URL (http://127.0.0.1:PORT) once it accepts
// connections. The server is killed when the test ends.
func StartEverything(t testing.TB, mode string) string {
	t.Helper()
	bin := filepath.Join(NPMBin(t), "mcp-server-everything")
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	preload := filepath.Join(root, ".ci", "loopback.cjs")
	port := freePort(t)
	cmd := exec.Command(bin, mode)
	opts := strings.TrimSpace(os.Getenv("NODE_OPTIONS") + ` --require "` + preload + `"`)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "NODE_OPTIONS="+opts)
	out := &SyncBuffer{}
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
	// A hang guard, not a measured bound: node can be slow to start on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
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
		case <-tick.C:
		}
	}
	if bound := listenAddrs(port); len(bound) != 1 || bound[0] != "127.0.0.1" {
		t.Fatalf("server-everything listens on %v, want only 127.0.0.1 (loopback.cjs not applied?)", bound)
	}
	return "http://" + addr
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// listenAddrs lists the local IPv4/IPv6 addresses with a TCP socket listening on port,
// from /proc/net/tcp{,6}.
func listenAddrs(port int) []string {
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
