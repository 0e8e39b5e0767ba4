package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// everythingEnv configures the real npm everything server and fills the cache through
// `mcp-bridge refresh`. opened is where a fake xdg-open (first on PATH) records the URLs
// the bridge opens.
func everythingEnv(t *testing.T) (e *env, opened string) {
	bin := testutil.NPMBin(t)
	e = newEnv(t)
	e.write(map[string]any{"everything": map[string]any{"command": filepath.Join(bin, "mcp-server-everything"), "connectTimeout": 60}}, nil)
	opener := t.TempDir()
	opened = filepath.Join(opener, "opened")
	script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '" + opened + "'\n"
	if err := os.WriteFile(filepath.Join(opener, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, v := range e.vars {
		if strings.HasPrefix(v, "PATH=") {
			e.vars[i] = "PATH=" + opener + string(os.PathListSeparator) + strings.TrimPrefix(v, "PATH=")
		}
	}
	if out, code := e.run("refresh"); code != 0 {
		t.Fatalf("refresh of the npm everything server failed (%d): %s", code, out)
	}
	return e, opened
}

var requestNumber = regexp.MustCompile(`\(request (\d+)\)`)

// TestNPMElicitationInZot drives the built binary on a NEW host: the everything server's
// questions are answered with /mcp answer, a URL is opened only after /mcp accept, and a
// question is declined with /mcp decline.
func TestNPMElicitationInZot(t *testing.T) {
	t.Parallel()
	e, opened := everythingEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	h := e.start()
	h.ExpectHello(ctx)
	h.Handshake(ctx, newAck(e.project, []string{"call_tool"}))
	tests := []struct {
		name string
		tool string
		args map[string]any
		cmd  string // n is appended or replaces %s
		want []string
	}{
		{"answer", "mcp__everything__trigger_elicitation_request", map[string]any{}, "answer %s name=Grace Hopper integer=9",
			[]string{"User provided the requested information", "Name: Grace Hopper", "Favorite Integer: 9"}},
		{"accept url", "mcp__everything__trigger_url_elicitation", map[string]any{"url": "https://example.com/approve", "message": "Approve the deploy"},
			"accept %s", []string{"User completed the URL elicitation flow"}},
		{"decline", "mcp__everything__trigger_elicitation_request", map[string]any{}, "decline %s",
			[]string{"User declined to provide the requested information"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := "c" + string(rune('0'+i))
			if err := h.SendToolCall(id, tt.tool, tt.args); err != nil {
				t.Fatal(err)
			}
			// Requests are numbered from 1 in the order the server asks.
			note, err := h.WaitNotify(ctx, "(request "+strconv.Itoa(i+1)+")")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(opened); err == nil {
				t.Fatal("a URL was opened before /mcp accept")
			}
			m := requestNumber.FindStringSubmatch(note.Unwrapped)
			if m == nil {
				t.Fatalf("note without a request number: %s", note.Unwrapped)
			}
			r, err := h.Command(ctx, id+"cmd", "mcp", strings.Replace(tt.cmd, "%s", m[1], 1))
			if err != nil || r.Error != "" {
				t.Fatalf("/mcp %s: %v %q", tt.cmd, err, r.Error)
			}
			res, err := h.WaitToolResult(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.want {
				if !strings.Contains(res.Text(), want) {
					t.Errorf("result lacks %q:\n%s", want, res.Text())
				}
			}
			if tt.name == "accept url" {
				got, err := os.ReadFile(opened)
				if err != nil || string(got) != "https://example.com/approve\n" {
					t.Errorf("opened %q (%v), want the server's URL once", got, err)
				}
				_ = os.Remove(opened)
			}
		})
	}
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	_ = h.Wait(ctx)
}

// TestNPMElicitationCLI: a non-interactive `call` declines the everything server's
// question and says so; --accept-defaults declines too when a required field has no
// default, naming it.
func TestNPMElicitationCLI(t *testing.T) {
	t.Parallel()
	e, _ := everythingEnv(t)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"not interactive", nil, []string{"declined: this call is not interactive", "--accept-defaults", "User declined"}},
		{"defaults miss a required field", []string{"--accept-defaults"}, []string{"the defaults do not answer it", "missing property 'name'", "User declined"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := e.run(append([]string{"call", "everything", "trigger-elicitation-request"}, tt.args...)...)
			if code != 0 {
				t.Errorf("exit %d", code)
			}
			for _, want := range tt.want {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
