package exttest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
)

// helperEnv makes the test binary act as an extension process.
const helperEnv = "EXTTEST_HELPER_EXTENSION"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(helperMain())
	}
	os.Exit(m.Run())
}

// echo is a minimal extension: one tool that echoes, one command.
type echo struct{ s *extension.Session }

func (e *echo) Setup(_ context.Context, s *extension.Session) error {
	e.s = s
	var r extension.Registrations
	if err := r.AddTool(extension.Tool{Name: "echo", Description: "echoes", Schema: json.RawMessage(`{"type":"object"}`)}); err != nil {
		return err
	}
	if err := r.AddCommand("hi", "says hi"); err != nil {
		return err
	}
	return s.Register(&r)
}

func (e *echo) CallTool(_ context.Context, c extension.ToolCall) extension.ToolResult {
	e.s.Notify("info", "called "+c.Name)
	return extension.ToolResult{Content: []extension.Content{{Type: "text", Text: string(c.Args)}}}
}

func (e *echo) RunCommand(_ context.Context, c extension.Command) extension.CommandResponse {
	return extension.CommandResponse{Action: "display", Display: "hi " + c.Args}
}

func helperMain() int {
	log := zerolog.New(os.Stderr)
	log.Info().Msg("helper starting")
	if err := extension.Run(context.Background(), os.Stdin, os.Stdout, &echo{}, extension.Options{Name: "helper", Version: "1", Log: log}); err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		return 1
	}
	return 0
}

func TestStartProcess(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	h := exttest.StartProcess(t, cmd)

	hello := h.ExpectHello(ctx)
	if hello.Name != "helper" || hello.Version != "1" {
		t.Fatalf("hello = %+v", hello)
	}
	regs := h.Handshake(ctx, exttest.Ack{Capabilities: []string{"call_tool"}})
	var types []string
	for _, f := range regs {
		types = append(types, f.Type)
	}
	if strings.Join(types, ",") != "register_tool,register_command" {
		t.Fatalf("registrations = %v", types)
	}
	res, err := h.CallTool(ctx, "1", "echo", map[string]string{"a": "b"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text() != `{"a":"b"}` || res.IsError {
		t.Fatalf("result = %+v", res)
	}
	if n, err := h.WaitNotify(ctx, "called echo"); err != nil || n.Level != "info" {
		t.Fatalf("notify = %+v, %v", n, err)
	}
	r, err := h.Command(ctx, "c", "hi", "there")
	if err != nil || r.Action != "display" || r.Display != "hi there" {
		t.Fatalf("command = %+v, %v", r, err)
	}
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Wait(ctx); err != nil {
		t.Fatalf("process exit: %v", err)
	}
}

func TestStartProcessKilledOnCleanup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	t.Run("left running", func(t *testing.T) {
		h := exttest.StartProcess(t, cmd)
		h.ExpectHello(ctx)
	})
	if cmd.ProcessState == nil {
		t.Fatal("process was not waited for on cleanup")
	}
}

func TestWaitErrors(t *testing.T) {
	tests := []struct {
		name string
		wait func(ctx context.Context, h *exttest.Host) error
	}{
		{"next type", func(ctx context.Context, h *exttest.Host) error { _, err := h.NextType(ctx, "never"); return err }},
		{"tool result", func(ctx context.Context, h *exttest.Host) error { _, err := h.WaitToolResult(ctx, "x"); return err }},
		{"notify", func(ctx context.Context, h *exttest.Host) error { _, err := h.WaitNotify(ctx, "x"); return err }},
		{"wait", func(ctx context.Context, h *exttest.Host) error { return h.Wait(ctx) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, _, _ := exttest.NewPipe(t)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := tc.wait(ctx, h); err == nil || !strings.Contains(err.Error(), "context canceled") {
				t.Fatalf("err = %v, want a context error", err)
			}
		})
	}
}

func TestOutputClosedEndsWaits(t *testing.T) {
	h, _, out := exttest.NewPipe(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := out.Write([]byte(`{"type":"hello","name":"x","version":""}` + "\n" + `{"type":"notify","level":"info","message":"m"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if err := out.(interface{ Close() error }).Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if p := h.Pending(); len(p) != 2 || p[0].Seq != 0 || p[1].Type != "notify" || !p[1].Has("level") {
		t.Fatalf("pending = %+v", p)
	}
	h.ExpectHello(ctx)
	if _, err := h.NextType(ctx, "ready"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("err = %v, want output closed", err)
	}
}

// TestSessionStartAndWrappedNotes: like zot, Handshake sends session_start to an extension
// that subscribed to it, and WaitNotify finds a phrase however the note is wrapped.
func TestSessionStartAndWrappedNotes(t *testing.T) {
	h, in, out := exttest.NewPipe(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lines := `{"type":"hello","name":"x","version":""}` + "\n" +
		`{"type":"subscribe","events":["session_start"]}` + "\n" + `{"type":"ready"}` + "\n" +
		`{"type":"notify","level":"warn","message":"MCP: approve with /mcp trust\n    proj now"}` + "\n"
	if _, err := out.Write([]byte(lines)); err != nil {
		t.Fatal(err)
	}
	h.ExpectHello(ctx)
	got := make(chan string, 1)
	go func() {
		r := bufio.NewReader(in)
		_, _ = r.ReadString('\n') // hello_ack
		l, _ := r.ReadString('\n')
		got <- l
	}()
	if regs := h.Handshake(ctx, exttest.Ack{}); len(regs) != 1 || regs[0].Type != "subscribe" {
		t.Fatalf("registrations = %+v", regs)
	}
	select {
	case l := <-got:
		if !strings.Contains(l, `"event":"session_start"`) {
			t.Errorf("after the handshake the host sent %q, want session_start", l)
		}
	case <-ctx.Done():
		t.Fatal("no frame after hello_ack")
	}
	n, err := h.WaitNotify(ctx, "/mcp trust proj")
	if err != nil {
		t.Fatal(err)
	}
	if n.Unwrapped != "MCP: approve with /mcp trust proj now" {
		t.Errorf("Unwrapped = %q", n.Unwrapped)
	}
}
