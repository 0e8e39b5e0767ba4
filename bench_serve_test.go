package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The load BenchmarkServeLoad puts on one `mcp-bridge serve --http` process.
const (
	serveLoadClients  = 100
	serveLoadCalls    = 20
	serveLoadBackends = 8
)

// serveProc is a running `mcp-bridge serve --http` with a token file.
type serveProc struct {
	cmd    *exec.Cmd
	url    string
	token  string
	stderr *capped
	exited chan error
}

// startServe runs `mcp-bridge serve --http 127.0.0.1:0 --token-file F --tools search`
// in h and waits for the URL it prints.
func (h *home) startServe(ctx context.Context) *serveProc {
	h.b.Helper()
	token := "bench-token-0123456789abcdef"
	tf := filepath.Join(h.b.TempDir(), "token")
	if err := os.WriteFile(tf, []byte(token+"\n"), 0o600); err != nil {
		h.b.Fatal(err)
	}
	cmd := exec.Command(h.bin, "serve", "--http", "127.0.0.1:0", "--token-file", tf, "--cwd", h.project)
	cmd.Env = h.env
	cmd.Dir = h.project
	pipe, err := cmd.StderrPipe()
	if err != nil {
		h.b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.b.Fatal(err)
	}
	p := &serveProc{cmd: cmd, token: token, stderr: &capped{}, exited: make(chan error, 1)}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			_, _ = p.stderr.Write([]byte(line + "\n"))
			if _, rest, ok := strings.Cut(line, "listening on "); ok {
				u, _, _ := strings.Cut(rest, " ")
				select {
				case urls <- u:
				default:
				}
			}
		}
		p.exited <- cmd.Wait()
	}()
	h.b.Cleanup(func() { _ = cmd.Process.Kill() })
	select {
	case p.url = <-urls:
	case err := <-p.exited:
		h.b.Fatalf("mcp-bridge serve exited before listening: %v\n%s", err, p.stderr)
	case <-ctx.Done():
		h.b.Fatalf("mcp-bridge serve printed no URL\n%s", p.stderr)
	}
	return p
}

// stop ends the serve process with SIGTERM and checks that no server outlived it.
func (p *serveProc) stop(ctx context.Context, h *home) {
	h.b.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.exited:
		if err != nil {
			h.b.Fatalf("mcp-bridge serve exit: %v\n%s", err, p.stderr)
		}
	case <-ctx.Done():
		h.b.Fatalf("mcp-bridge serve did not exit on SIGTERM\n%s", p.stderr)
	}
	h.noProcs("mcp-bridge serve")
}

// client is an initialized HTTP client of the serve process in era.
func (p *serveProc) client(ctx context.Context, era string, hc *http.Client) (*client.Client, error) {
	c, err := client.NewStreamableHttpClient(p.url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + p.token}),
		transport.WithHTTPBasicClient(hc))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = era
	req.Params.ClientInfo = mcp.Implementation{Name: "bench-serve", Version: "0"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	if res.ProtocolVersion != era {
		_ = c.Close()
		return nil, fmt.Errorf("asked for %s, settled on %s", era, res.ProtocolVersion)
	}
	return c, nil
}

// serveCall calls name with args and returns the text of its answer; an error result is
// an error.
func serveCall(ctx context.Context, c *client.Client, name string, args map[string]any) (string, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "", errors.New(sb.String())
	}
	return sb.String(), nil
}

// statusKB reads a "Vm…:" field of /proc/<pid>/status, in kB.
func statusKB(pid int, field string) (float64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				return strconv.ParseFloat(f[0], 64)
			}
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// serveHome is a home with serveLoadBackends fake servers s0… configured and listed;
// each one's echo answers with its name first.
func serveHome(b testing.TB) *home {
	h := newHome(b)
	servers := map[string]any{}
	for i := range serveLoadBackends {
		name := "s" + strconv.Itoa(i)
		servers[name] = h.server(name, "-workers", "16", "-echo-tag", name)
	}
	h.writeConfig(servers, "")
	h.refresh()
	return h
}

// BenchmarkServeLatency: one call of the fake server's echo through `mcp-bridge serve
// --http` (call_tool, a 2026-07-28 client and a 2025-11-25 one), one search_tools, and
// the same echo from a direct mcp-go client of a fake server over stdio; each iteration
// makes one of each, rotating which goes first.
func BenchmarkServeLatency(b *testing.B) {
	h := serveHome(b)
	ctx, cancel := context.WithTimeout(context.Background(), benchGuard)
	defer cancel()
	p := h.startServe(ctx)
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	modern, err := p.client(ctx, mcp.LATEST_PROTOCOL_VERSION, hc)
	if err != nil {
		b.Fatal(err)
	}
	legacy, err := p.client(ctx, mcp.LATEST_LEGACY_PROTOCOL_VERSION, hc)
	if err != nil {
		b.Fatal(err)
	}
	direct := h.directClient(ctx, "direct")
	args := map[string]any{"text": "hello"}
	via := map[string]any{"server": "s0", "tool": "echo", "arguments": args}
	search := map[string]any{"query": "echo text back"}
	ops := []struct {
		name string
		run  func() error
	}{
		{"call", func() error { _, err := serveCall(ctx, modern, "call_tool", via); return err }},
		{"call-legacy", func() error { _, err := serveCall(ctx, legacy, "call_tool", via); return err }},
		{"search", func() error { _, err := serveCall(ctx, modern, "search_tools", search); return err }},
		{"direct", func() error { _, err := serveCall(ctx, direct, "echo", args); return err }},
	}
	for range 50 { // warm up: the first call starts the server
		for _, op := range ops {
			if err := op.run(); err != nil {
				b.Fatalf("%s: %v\n%s", op.name, err, p.stderr)
			}
		}
	}
	took := make([][]float64, len(ops))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range ops {
			j := (i + k) % len(ops)
			t0 := time.Now()
			if err := ops[j].run(); err != nil {
				b.Fatalf("%s: %v\n%s", ops[j].name, err, p.stderr)
			}
			took[j] = append(took[j], us(time.Since(t0)))
		}
	}
	b.StopTimer()
	for j, op := range ops {
		b.ReportMetric(quantile(took[j], 0.5), op.name+"-p50-us")
		b.ReportMetric(quantile(took[j], 0.99), op.name+"-p99-us")
	}
	_ = direct.Close()
	_ = modern.Close()
	_ = legacy.Close()
	p.stop(ctx, h)
}

// BenchmarkServeLoad: serveLoadClients clients at once (half of each era) make
// serveLoadCalls calls each through one `mcp-bridge serve --http` process, spread over
// serveLoadBackends fake servers; every answer must carry its call's own id. Reported:
// the process's resident set before (every server started, idle) and after the load, its
// peak, and the wall time of one load. Then SIGTERM: every server process must be gone.
func BenchmarkServeLoad(b *testing.B) {
	h := serveHome(b)
	ctx, cancel := context.WithTimeout(context.Background(), benchGuard)
	defer cancel()
	p := h.startServe(ctx)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: serveLoadClients}}
	defer hc.CloseIdleConnections()
	warm, err := p.client(ctx, mcp.LATEST_PROTOCOL_VERSION, hc)
	if err != nil {
		b.Fatal(err)
	}
	for i := range serveLoadBackends { // every server started before the idle figure
		via := map[string]any{"server": "s" + strconv.Itoa(i), "tool": "echo", "arguments": map[string]any{"text": "w"}}
		if _, err := serveCall(ctx, warm, "call_tool", via); err != nil {
			b.Fatalf("warm-up: %v\n%s", err, p.stderr)
		}
	}
	_ = warm.Close()
	pid := p.cmd.Process.Pid
	idle, err := statusKB(pid, "VmRSS")
	if err != nil {
		b.Fatal(err)
	}
	var walls []float64
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		t0 := time.Now()
		if err := serveLoad(ctx, p, hc, n); err != nil {
			b.Fatalf("%v\n%s", err, p.stderr)
		}
		walls = append(walls, ms(time.Since(t0)))
	}
	b.StopTimer()
	rss, err1 := statusKB(pid, "VmRSS")
	hwm, err2 := statusKB(pid, "VmHWM")
	if err := errors.Join(err1, err2); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(idle/1024, "rss-idle-MB")
	b.ReportMetric(rss/1024, "rss-after-MB")
	b.ReportMetric(hwm/1024, "hwm-MB")
	b.ReportMetric(quantile(walls, 0.5), "ms/load")
	b.ReportMetric(float64(serveLoadClients*serveLoadCalls)/(quantile(walls, 0.5)/1000), "calls/s")
	p.stop(ctx, h)
}

// serveLoad is one load: every client connects, makes its calls and closes.
func serveLoad(ctx context.Context, p *serveProc, hc *http.Client, round int) error {
	var wg sync.WaitGroup
	errs := make(chan error, serveLoadClients)
	for ci := range serveLoadClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			era := mcp.LATEST_PROTOCOL_VERSION
			if ci%2 == 1 {
				era = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			}
			c, err := p.client(ctx, era, hc)
			if err != nil {
				errs <- fmt.Errorf("client %d: %w", ci, err)
				return
			}
			defer func() { _ = c.Close() }()
			for k := range serveLoadCalls {
				id := fmt.Sprintf("r%d.c%d.%d", round, ci, k)
				server := "s" + strconv.Itoa((ci+k)%serveLoadBackends)
				got, err := serveCall(ctx, c, "call_tool", map[string]any{"server": server, "tool": "echo", "arguments": map[string]any{"text": id}})
				if err != nil {
					errs <- fmt.Errorf("call %s to %s: %w", id, server, err)
					return
				}
				if got != server+" "+id {
					errs <- fmt.Errorf("call %s to %s answered %q", id, server, got)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}
