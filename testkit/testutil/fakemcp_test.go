package testutil_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testutil.RemoveBuilt()
	os.Exit(code)
}

var defaultToolNames = []string{
	"add", "audio", "big", "cwd", "echo", "env", "fail", "image",
	"kebab-case.tool", "link", "pid", "resource", "slow",
}

// legacyInit is an initialize request pinned to the handshake protocol, so
// that initialize and notifications/initialized are really exchanged (the
// mcp-go client otherwise tries the 2026-07-28 server/discover first).
func legacyInit() mcp.InitializeRequest {
	return mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_LEGACY_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "testutil-test", Version: "0.0.1"},
	}}
}

// startStdio starts the fake server over stdio with args and returns an
// uninitialised client that is closed when the test ends.
func startStdio(t *testing.T, env []string, args ...string) *client.Client {
	t.Helper()
	c, err := client.NewStdioMCPClient(testutil.FakeServer(t), env, args...)
	if err != nil {
		t.Fatalf("start stdio client: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	// NewStdioMCPClient starts the transport but not the client: without
	// Start, notification handlers (OnNotification) are never wired up.
	if err := c.Start(t.Context()); err != nil {
		t.Fatalf("start client: %v", err)
	}
	return c
}

func initStdio(t *testing.T, env []string, args ...string) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	c := startStdio(t, env, args...)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := c.Initialize(ctx, legacyInit())
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c, res
}

func call(t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func onlyText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want 1 content block, got %d: %+v", len(res.Content), res.Content)
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("want text content, got %T", res.Content[0])
	}
	return tc.Text
}

func listTools(t *testing.T, c *client.Client) []mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	return res.Tools
}

func toolNames(tools []mcp.Tool) []string {
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func TestStdioDefaultTools(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	c, initRes := initStdio(t, []string{"FAKEMCP_TEST_VAR=hello env"},
		"-name", "myfake", "-instructions", "be nice", "-record", rec)

	if initRes.ServerInfo.Name != "myfake" || initRes.Instructions != "be nice" {
		t.Errorf("serverInfo.name=%q instructions=%q", initRes.ServerInfo.Name, initRes.Instructions)
	}

	tools := listTools(t, c)
	if got := toolNames(tools); !slices.Equal(got, defaultToolNames) {
		t.Fatalf("tools = %v, want %v", got, defaultToolNames)
	}
	for _, tl := range tools {
		switch tl.Name {
		case "echo":
			if h := tl.Annotations.ReadOnlyHint; h == nil || !*h {
				t.Errorf("echo readOnlyHint = %v, want true", h)
			}
			if !slices.Contains(tl.InputSchema.Required, "text") {
				t.Errorf("echo input schema does not require text: %+v", tl.InputSchema)
			}
		case "add":
			if tl.OutputSchema.Type != "object" && len(tl.RawOutputSchema) == 0 {
				t.Errorf("add has no output schema: %+v", tl)
			}
		}
	}

	if got := onlyText(t, call(t, c, "echo", map[string]any{"text": "hi there"})); got != "hi there" {
		t.Errorf("echo = %q", got)
	}

	add := call(t, c, "add", map[string]any{"a": 2, "b": 3.5})
	if got := onlyText(t, add); got != "5.5" {
		t.Errorf("add text = %q", got)
	}
	if sc, _ := json.Marshal(add.StructuredContent); string(sc) != `{"sum":5.5}` {
		t.Errorf("add structuredContent = %s", sc)
	}

	img := call(t, c, "image", nil)
	if len(img.Content) != 1 {
		t.Fatalf("image content = %+v", img.Content)
	}
	ic, ok := mcp.AsImageContent(img.Content[0])
	if !ok || ic.MIMEType != "image/png" {
		t.Fatalf("image content = %#v", img.Content[0])
	}
	raw, err := base64.StdEncoding.DecodeString(ic.Data)
	if err != nil {
		t.Fatalf("image base64: %v", err)
	}
	if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
		t.Errorf("image is not a PNG: %v", err)
	}

	if got := onlyText(t, call(t, c, "big", map[string]any{"bytes": 100_000})); got != strings.Repeat("x", 100_000) {
		t.Errorf("big returned %d bytes", len(got))
	}

	fail := call(t, c, "fail", nil)
	if !fail.IsError || onlyText(t, fail) != "it failed" {
		t.Errorf("fail = %+v", fail)
	}

	if got := onlyText(t, call(t, c, "env", map[string]any{"name": "FAKEMCP_TEST_VAR"})); got != "hello env" {
		t.Errorf("env = %q", got)
	}
	if got := onlyText(t, call(t, c, "env", map[string]any{"name": "FAKEMCP_SURELY_UNSET"})); got != "" {
		t.Errorf("env unset = %q", got)
	}
	wd, _ := os.Getwd()
	if got := onlyText(t, call(t, c, "cwd", nil)); got != wd {
		t.Errorf("cwd = %q, want %q", got, wd)
	}
	pid, err := strconv.Atoi(onlyText(t, call(t, c, "pid", nil)))
	if err != nil || pid <= 0 || pid == os.Getpid() {
		t.Errorf("pid = %d, %v", pid, err)
	}

	audio := call(t, c, "audio", nil)
	if ac, ok := mcp.AsAudioContent(audio.Content[0]); !ok || ac.MIMEType != "audio/wav" || ac.Data == "" {
		t.Errorf("audio content = %#v", audio.Content[0])
	}
	resource := call(t, c, "resource", nil)
	if er, ok := mcp.AsEmbeddedResource(resource.Content[0]); !ok {
		t.Errorf("resource content = %#v", resource.Content[0])
	} else if tr, ok := mcp.AsTextResourceContents(er.Resource); !ok || tr.Text == "" || tr.URI == "" {
		t.Errorf("embedded resource = %#v", er.Resource)
	}
	link := call(t, c, "link", nil)
	switch l := link.Content[0].(type) {
	case mcp.ResourceLink:
		if l.Type != "resource_link" || l.URI == "" {
			t.Errorf("link = %#v", l)
		}
	case *mcp.ResourceLink:
		if l.Type != "resource_link" || l.URI == "" {
			t.Errorf("link = %#v", l)
		}
	default:
		t.Errorf("link content = %#v", link.Content[0])
	}
	if got := onlyText(t, call(t, c, "kebab-case.tool", nil)); got != "ok" {
		t.Errorf("kebab-case.tool = %q", got)
	}

	// The record holds the handshake and one tools/call line per call.
	lines := testutil.ReadRecord(t, rec)
	var methods []string
	var echoLine testutil.RecordLine
	for _, l := range lines {
		methods = append(methods, l.Method)
		if l.Tool == "echo" {
			echoLine = l
		}
	}
	if len(methods) < 2 || methods[0] != "initialize" || methods[1] != "notifications/initialized" {
		t.Errorf("record starts with %v", methods)
	}
	if echoLine.Method != "tools/call" || echoLine.IDString() == "" || string(echoLine.Arguments) != `{"text":"hi there"}` {
		t.Errorf("echo record line = %+v", echoLine)
	}
}

func TestStdioModernDiscover(t *testing.T) {
	// Without a pinned protocol version the mcp-go client negotiates
	// 2026-07-28 via server/discover; the fake server supports that too.
	c := startStdio(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := c.Initialize(ctx, mcp.InitializeRequest{})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ServerInfo.Name != "fake" {
		t.Errorf("server name = %q", res.ServerInfo.Name)
	}
	if got := onlyText(t, call(t, c, "echo", map[string]any{"text": "modern"})); got != "modern" {
		t.Errorf("echo = %q", got)
	}
}

func TestStdioGeneratedTools(t *testing.T) {
	c, _ := initStdio(t, nil, "-tools", "500")
	tools := listTools(t, c)
	if len(tools) != 500+len(defaultToolNames) {
		t.Fatalf("got %d tools, want %d", len(tools), 500+len(defaultToolNames))
	}
	descs := map[string]bool{}
	for _, tl := range tools {
		if !strings.HasPrefix(tl.Name, "gen_") {
			continue
		}
		if descs[tl.Description] {
			t.Errorf("duplicate description %q", tl.Description)
		}
		descs[tl.Description] = true
		if tl.InputSchema.Type != "object" || len(tl.InputSchema.Properties) == 0 {
			t.Errorf("%s schema = %+v", tl.Name, tl.InputSchema)
		}
	}
	if !descs[tools[slices.IndexFunc(tools, func(tl mcp.Tool) bool { return tl.Name == "gen_0499" })].Description] {
		t.Error("gen_0499 missing")
	}
	if got := onlyText(t, call(t, c, "gen_0042", map[string]any{"value": "v"})); got != "gen_0042: v" {
		t.Errorf("gen_0042 = %q", got)
	}

	c2, _ := initStdio(t, nil, "-no-default-tools", "-tools", "3")
	if got := toolNames(listTools(t, c2)); !slices.Equal(got, []string{"gen_0000", "gen_0001", "gen_0002"}) {
		t.Errorf("-no-default-tools -tools 3: %v", got)
	}
}

func TestStdioSlowAndCancel(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	c, _ := initStdio(t, nil, "-record", rec)

	if got := onlyText(t, call(t, c, "slow", map[string]any{"ms": 20})); got != "done" {
		t.Errorf("slow = %q", got)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 60_000}}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled slow: err = %v", err)
	}

	// mcp-go's client sends notifications/cancelled (asynchronously) over
	// stdio when the request's context ends.
	var slowID string
	for _, l := range testutil.ReadRecord(t, rec) {
		if l.Method == "tools/call" && l.Tool == "slow" && strings.Contains(string(l.Arguments), "60000") {
			slowID = l.IDString()
		}
	}
	if slowID == "" {
		t.Fatal("no tools/call slow line in record")
	}
	cancelled := testutil.WaitRecord(t, rec, 10*time.Second, func(l testutil.RecordLine) bool {
		return l.Method == "notifications/cancelled"
	})
	if cancelled.RequestID() != slowID {
		t.Errorf("notifications/cancelled requestId = %s, want %s (params %s)", cancelled.RequestID(), slowID, cancelled.Params)
	}
	// ... and the server cancels the handler's context in response.
	testutil.WaitRecord(t, rec, 10*time.Second, func(l testutil.RecordLine) bool {
		return l.Method == "fake/slow_cancelled"
	})

	// The connection is still usable afterwards.
	if got := onlyText(t, call(t, c, "echo", map[string]any{"text": "after"})); got != "after" {
		t.Errorf("echo after cancel = %q", got)
	}
}

func TestStdioCrashAfter(t *testing.T) {
	c, _ := initStdio(t, nil, "-crash-after", "2")
	if got := onlyText(t, call(t, c, "echo", map[string]any{"text": "one"})); got != "one" {
		t.Errorf("first call = %q", got)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "two"}}}); err == nil {
		t.Fatal("second call succeeded; want an error from the crashed server")
	} else if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second call hung until timeout: %v", err)
	}
}

func TestStdioJunkAndBanner(t *testing.T) {
	for _, args := range [][]string{{"-junk"}, {"-banner"}, {"-junk", "-banner"}} {
		t.Run(strings.Join(args, ""), func(t *testing.T) {
			c, res := initStdio(t, nil, args...)
			if res.ServerInfo.Name != "fake" {
				t.Errorf("server name = %q", res.ServerInfo.Name)
			}
			if len(listTools(t, c)) != len(defaultToolNames) {
				t.Error("wrong number of tools")
			}
			for i := range 5 {
				want := fmt.Sprintf("msg %d", i)
				if got := onlyText(t, call(t, c, "echo", map[string]any{"text": want})); got != want {
					t.Errorf("echo = %q, want %q", got, want)
				}
			}
		})
	}
}

// rawRun runs the fake server with stdin fed from input (then closed after
// linger) and returns its stdout, stderr and exit code.
func rawRun(t *testing.T, input string, linger time.Duration, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return rawRunUntil(t, input, linger, "", args...)
}

// rawRunUntil is rawRun closing stdin only once stdout holds seen (after linger), so
// that the server's answers, not the machine's speed, decide when its input ends.
func rawRunUntil(t *testing.T, input string, linger time.Duration, seen string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(testutil.FakeServer(t), args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &watchedBuffer{want: seen, seen: make(chan struct{})}
	if seen == "" {
		close(out.seen)
	}
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	exited := make(chan struct{})
	defer close(exited)
	go func() {
		_, _ = io.WriteString(stdin, input)
		time.Sleep(linger)
		select {
		case <-out.seen:
		case <-exited:
		}
		_ = stdin.Close()
	}()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("wait: %v", err)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("fake server %v did not exit", args)
	}
	return out.String(), errb.String(), code
}

// watchedBuffer is a process's stdout that closes seen once it holds want.
type watchedBuffer struct {
	testutil.SyncBuffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *watchedBuffer) Write(p []byte) (int, error) {
	n, err := w.SyncBuffer.Write(p)
	if w.want != "" && strings.Contains(w.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

const (
	rawInit        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n"
	rawInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
)

func rawCall(id int, tool string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"text":"x"}}}`+"\n", id, tool)
}

func TestStdioRawOutput(t *testing.T) {
	t.Run("junk never corrupts JSON", func(t *testing.T) {
		in := rawInit + rawInitialized + rawCall(2, "echo") + rawCall(3, "echo") + rawCall(4, "pid")
		// stdin ends once the last call is answered: the server stops reading at its end.
		out, _, code := rawRunUntil(t, in, 0, `"id":4`, "-junk", "-banner")
		if code != 0 {
			t.Errorf("exit code %d", code)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if lines[0] != "Server started on stdio" || !strings.HasPrefix(lines[1], "npm WARN") {
			t.Errorf("output starts with %q", lines[:2])
		}
		var jsonLines, junk int
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "npm WARN") {
				junk++
				continue
			}
			if !json.Valid([]byte(l)) {
				t.Errorf("corrupt line %q", l)
			}
			jsonLines++
		}
		if jsonLines != 4 || junk != 5 {
			t.Errorf("json lines %d, junk lines %d; output:\n%s", jsonLines, junk, out)
		}
	})

	t.Run("exit-on-start", func(t *testing.T) {
		out, errOut, code := rawRun(t, "", 0, "-exit-on-start")
		if code != 1 || strings.TrimSpace(errOut) != "fatal: boom" || out != "" {
			t.Errorf("code %d stderr %q stdout %q", code, errOut, out)
		}
	})

	t.Run("crash-after exit status", func(t *testing.T) {
		in := rawInit + rawInitialized + rawCall(2, "echo") + rawCall(3, "echo")
		out, _, code := rawRun(t, in, 5*time.Second, "-crash-after", "2", "-workers", "1") // one worker: call 2 is answered before call 3 is read
		if code != 3 {
			t.Errorf("exit code %d, want 3", code)
		}
		if !strings.Contains(out, `"id":2`) || strings.Contains(out, `"id":3`) {
			t.Errorf("stdout:\n%s", out)
		}
	})

	t.Run("hang-start", func(t *testing.T) {
		out, _, code := rawRun(t, rawInit, 300*time.Millisecond, "-hang-start")
		if code != 0 || out != "" {
			t.Errorf("code %d stdout %q", code, out)
		}
	})

	t.Run("stderr-bytes", func(t *testing.T) {
		_, errOut, code := rawRun(t, "", 0, "-stderr-bytes", "1234")
		if code != 0 || len(errOut) != 1234 {
			t.Fatalf("code %d, %d stderr bytes", code, len(errOut))
		}
		for _, l := range strings.SplitAfter(errOut, "\n") {
			if len(l) > 100 {
				t.Fatalf("stderr line of %d bytes", len(l))
			}
		}
	})
}

func TestStdioIgnoreStdinCloseAndSigterm(t *testing.T) {
	cmd := exec.Command(testutil.FakeServer(t), "-ignore-stdin-close", "-ignore-sigterm")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })

	_ = stdin.Close()
	select {
	case err := <-done:
		t.Fatalf("exited after stdin close: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		t.Fatalf("exited after SIGTERM: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
}

func TestStdioListChanged(t *testing.T) {
	c := startStdio(t, nil, "-list-changed-after", "50")
	changed := make(chan struct{})
	var once sync.Once
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			once.Do(func() { close(changed) })
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, legacyInit()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no notifications/tools/list_changed")
	}
	if !slices.Contains(toolNames(listTools(t, c)), "late_tool") {
		t.Error("late_tool not listed after list_changed")
	}
}

func TestStdioGrandchild(t *testing.T) {
	marker := testutil.NewMarker(t)
	t.Cleanup(func() { testutil.KillProcsWithMarker(marker) })

	c, _ := initStdio(t, nil, "-grandchild", "-marker", marker, "-max-lifetime", "2m")
	pids := testutil.ProcsWithMarker(marker)
	if len(pids) != 2 {
		t.Fatalf("processes with marker: %v, want 2", pids)
	}
	serverPid, _ := strconv.Atoi(onlyText(t, call(t, c, "pid", nil)))
	if !slices.Contains(pids, serverPid) {
		t.Errorf("server pid %d not among %v", serverPid, pids)
	}

	// mcp-go's Stdio.Close closes stdin, then signals only the direct child
	// (SIGTERM, then SIGKILL); it does not kill the process group, so the
	// grandchild outlives it.
	if err := c.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	left := testutil.WaitNoProcs(ctx, marker)
	t.Logf("after client Close, processes with marker: %v (server was %d)", left, serverPid)
	if slices.Contains(left, serverPid) {
		t.Errorf("server %d still alive after Close", serverPid)
	}

	testutil.KillProcsWithMarker(marker)
	ctx2, cancel2 := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel2()
	if left := testutil.WaitNoProcs(ctx2, marker); left != nil {
		t.Errorf("still alive after kill: %v", left)
	}
}

// checkHeaderRecord verifies every accepted HTTP request carried the header.
func checkHeaderRecord(t *testing.T, rec, key, val string) {
	t.Helper()
	var accepted, rejected int
	for _, l := range testutil.ReadRecord(t, rec) {
		if l.Method != "http" {
			continue
		}
		if l.Rejected {
			rejected++
			continue
		}
		accepted++
		if got := l.Headers[key]; !slices.Equal(got, []string{val}) {
			t.Errorf("%s %s carried %s=%v", l.HTTPMethod, l.Path, key, got)
		}
	}
	if accepted == 0 || rejected == 0 {
		t.Errorf("accepted %d, rejected %d HTTP requests; want both > 0", accepted, rejected)
	}
}

func TestStreamableHTTP(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	url := testutil.StartHTTP(t, "-http", "127.0.0.1:0", "-require-header", "X-Test-Token:s3cret", "-record", rec)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("url = %q", url)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	// Without the header: 401.
	bad, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Start(ctx); err == nil {
		if _, err := bad.Initialize(ctx, legacyInit()); err == nil {
			t.Error("initialize without the header succeeded")
		}
	}
	_ = bad.Close()

	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"X-Test-Token": "s3cret"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, legacyInit()); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if n := len(listTools(t, c)); n != len(defaultToolNames) {
		t.Errorf("%d tools", n)
	}
	if got := onlyText(t, call(t, c, "echo", map[string]any{"text": "over http"})); got != "over http" {
		t.Errorf("echo = %q", got)
	}

	// A request the client abandons (its context ends once the server has
	// the call) ends the slow tool's context on the server too: the fake
	// records fake/slow_cancelled long before the tool would finish.
	sctx, scancel := context.WithCancel(t.Context())
	defer scancel()
	callErr := make(chan error, 1)
	go func() {
		_, err := c.CallTool(sctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 600000}}})
		callErr <- err
	}()
	testutil.WaitRecord(t, rec, 30*time.Second, func(l testutil.RecordLine) bool { return l.Method == "tools/call" && l.Tool == "slow" })
	scancel()
	if err := <-callErr; err == nil {
		t.Error("the abandoned slow call returned no error")
	}
	testutil.WaitRecord(t, rec, 30*time.Second, func(l testutil.RecordLine) bool { return l.Method == "fake/slow_cancelled" })

	checkHeaderRecord(t, rec, "X-Test-Token", "s3cret")
}

func TestSSE(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	url := testutil.StartHTTP(t, "-sse", "127.0.0.1:0", "-require-header", "X-Test-Token:s3cret", "-record", rec)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/sse") {
		t.Fatalf("url = %q", url)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	bad, err := client.NewSSEMCPClient(url)
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Start(ctx); err == nil {
		t.Error("SSE start without the header succeeded")
	}
	_ = bad.Close()

	c, err := client.NewSSEMCPClient(url, client.WithHeaders(map[string]string{"X-Test-Token": "s3cret"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, legacyInit()); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if got := onlyText(t, call(t, c, "add", map[string]any{"a": 1, "b": 2})); got != "3" {
		t.Errorf("add = %q", got)
	}
	checkHeaderRecord(t, rec, "X-Test-Token", "s3cret")

	var paths []string
	for _, l := range testutil.ReadRecord(t, rec) {
		if l.Method == "http" && !l.Rejected {
			paths = append(paths, l.HTTPMethod+" "+l.Path)
		}
	}
	if !slices.Contains(paths, "GET /sse") || !slices.Contains(paths, "POST /message") {
		t.Errorf("accepted requests: %v", paths)
	}
}

func TestProcsWithMarkerIgnoresOthers(t *testing.T) {
	if pids := testutil.ProcsWithMarker(testutil.NewMarker(t)); len(pids) != 0 {
		t.Errorf("fresh marker matched %v", pids)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if left := testutil.WaitNoProcs(ctx, testutil.NewMarker(t)); left != nil {
		t.Errorf("WaitNoProcs = %v", left)
	}
}
