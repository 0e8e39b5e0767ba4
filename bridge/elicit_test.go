package bridge

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/remote"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// TestElicitURLCheck: a URL is shown and opened only when it is https (or http to a
// loopback host), has a host and no user info.
func TestElicitURLCheck(t *testing.T) {
	t.Parallel()
	env := remote.NewOAuth(t.TempDir(), remote.OAuthHooks{})
	tests := []struct {
		url string
		ok  bool
	}{
		{"https://example.com/pay?x=1", true},
		{"http://127.0.0.1:8080/consent", true},
		{"http://localhost/cb", true},
		{"http://[::1]:9/x", true},
		{"http://example.com/pay", false},
		{"https://user:pw@example.com/", false},
		{"https://user@example.com/", false},
		{"https:///nohost", false},
		{"javascript:alert(1)", false},
		{"file:///etc/passwd", false},
		{"https://example.com/a b", false},
		{`https://example.com/"x`, false},
		{"", false},
	}
	for _, tt := range tests {
		err := env.CheckElicitURL(tt.url)
		if (err == nil) != tt.ok {
			t.Errorf("checkElicitURL(%q) = %v, want ok=%v", tt.url, err, tt.ok)
		}
	}
	if _, err := interact.NewElicitation("srv", mcp.ElicitationParams{Mode: "url", URL: "http://evil.example/", ElicitationID: "1", Message: "m"}, env.CheckElicitURL); err == nil {
		t.Error("a plain-http URL to another host was accepted")
	}
}

// elicitHost runs the bridge in process on the fake NEW host with the real npm
// everything server, waits for its tools to be listed, and returns the host env.
func elicitHost(t *testing.T, opened *[]string, mu *sync.Mutex) *hostEnv {
	bin := testutil.NPMBin(t)
	e := newTestEnv(t)
	e.write(map[string]any{"everything": map[string]any{"command": filepath.Join(bin, "mcp-server-everything"), "connectTimeout": 60}}, nil)
	he := e.startHost(func(b *Bridge) {
		b.opts.OAuthHooks = remote.OAuthHooks{Open: func(_ context.Context, u string) error {
			mu.Lock()
			*opened = append(*opened, u)
			mu.Unlock()
			return nil
		}}
	})
	if _, err := he.h.WaitNotify(ctxGuard(t), "MCP tool cache updated for everything"); err != nil {
		t.Fatal(err)
	}
	return he
}

var requestN = regexp.MustCompile(`\(request (\d+)\)`)

// TestElicitEverythingServer: the real everything server's elicitation tools answered in
// zot with /mcp answer, /mcp accept (a URL, opened only then), /mcp decline and /mcp
// cancel, and one left unanswered until the call's budget ran out (on the injected clock).
func TestElicitEverythingServer(t *testing.T) {
	t.Parallel()
	var opened []string
	var mu sync.Mutex
	he := elicitHost(t, &opened, &mu)
	h := he.h
	form := map[string]any{"server": "everything", "tool": "trigger-elicitation-request"}
	url := map[string]any{"server": "everything", "tool": "trigger-url-elicitation", "arguments": map[string]any{
		"url": "https://example.com/consent?step=1", "message": "Confirm the payment"}}
	type step struct{ cmd, wantDisplay, wantErr string }
	tests := []struct {
		name      string
		call      map[string]any
		wantNote  []string
		steps     []step
		wantText  []string
		wantError bool
		wantOpen  bool
	}{
		{"answer", form, []string{"Please provide inputs", "name (string, required): Your full, legal name",
			"integer (integer): Your favorite integer", "default: 42", "firstLine (string): Favorite first line of a story; default: It was a dark and stormy night."},
			[]step{
				{"accept", "", "missing property 'name'"},
				{"answer %s name=Ada Lovelace integer=500", "", "at /integer: maximum: got 500, want 100"},
				{"answer %s name=Ada Lovelace integer=7 check=yes", `Sent your answer to MCP server "everything"`, ""},
			},
			[]string{"User provided the requested information", "Name: Ada Lovelace", "Favorite Integer: 7", "Agreed to terms: true", `"firstLine": "It was a dark and stormy night."`}, false, false},
		{"accept url", url, []string{`asks you to open a URL`, "Confirm the payment", "https://example.com/consent?step=1", "/mcp accept"},
			[]step{{"answer %s x=1", "", "asks you to open a URL"}, {"accept %s", "Opened https://example.com/consent?step=1", ""}},
			[]string{"User completed the URL elicitation flow"}, false, true},
		{"decline", form, []string{"Please provide inputs"}, []step{{"decline %s", "Declined", ""}},
			[]string{"User declined to provide the requested information"}, false, false},
		{"cancel", url, []string{"Confirm the payment"}, []step{{"cancel %s", "Cancelled", ""}},
			[]string{"User cancelled the URL elicitation"}, false, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			opened = nil
			mu.Unlock()
			id := "e" + string(rune('0'+i))
			if err := h.SendToolCall(id, CallToolName, tt.call); err != nil {
				t.Fatal(err)
			}
			// Requests are numbered from 1 in the order the server asks.
			note, err := h.WaitNotify(ctxGuard(t), "(request "+strconv.Itoa(i+1)+")")
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.wantNote {
				if !strings.Contains(note.Message, want) {
					t.Errorf("note lacks %q:\n%s", want, note.Message)
				}
			}
			m := requestN.FindStringSubmatch(note.Message)
			if m == nil {
				t.Fatalf("note without a request number: %s", note.Message)
			}
			for j, s := range tt.steps {
				mu.Lock()
				if len(opened) > 0 {
					t.Errorf("the URL was opened before /mcp accept: %v", opened)
				}
				mu.Unlock()
				args := s.cmd
				if strings.Contains(args, "%s") {
					args = strings.Replace(args, "%s", m[1], 1)
				} else {
					args += " " + m[1]
				}
				r, err := h.Command(ctxGuard(t), id+"c"+string(rune('0'+j)), "mcp", args)
				if err != nil {
					t.Fatal(err)
				}
				if s.wantErr != "" && !strings.Contains(r.Error, s.wantErr) || s.wantErr == "" && r.Error != "" {
					t.Fatalf("/mcp %s: error %q, want %q", args, r.Error, s.wantErr)
				}
				if !strings.Contains(r.Display, s.wantDisplay) {
					t.Fatalf("/mcp %s: display %q, want %q", args, r.Display, s.wantDisplay)
				}
			}
			res, err := h.WaitToolResult(ctxGuard(t), id)
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.wantError {
				t.Errorf("is_error %v: %s", res.IsError, res.Text())
			}
			for _, want := range tt.wantText {
				if !strings.Contains(res.Text(), want) {
					t.Errorf("result lacks %q:\n%s", want, res.Text())
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if tt.wantOpen != (len(opened) == 1) {
				t.Errorf("opened %v, want opened=%v", opened, tt.wantOpen)
			}
		})
	}

	t.Run("timeout", func(t *testing.T) {
		if err := h.SendToolCall("late", CallToolName, form); err != nil {
			t.Fatal(err)
		}
		n := strconv.Itoa(len(tests) + 1)
		if _, err := h.WaitNotify(ctxGuard(t), "(request "+n+")"); err != nil {
			t.Fatal(err)
		}
		he.clock.Advance(he.b.opts.CallBudget - interact.AnswerMargin)
		if _, err := h.WaitNotify(ctxGuard(t), "MCP request "+n+` from "everything" expired`); err != nil {
			t.Fatal(err)
		}
		res, err := h.WaitToolResult(ctxGuard(t), "late")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`MCP server "everything" asked the user a question during trigger-elicitation-request and nobody answered before the call's time ran out`,
			"Please provide inputs", "Fields: name, ", "/mcp answer <n> field=value", "/mcp accept <n>"} {
			if !strings.Contains(res.Text(), want) {
				t.Errorf("timeout result lacks %q:\n%s", want, res.Text())
			}
		}
		if !res.IsError {
			t.Error("an expired question is not an error")
		}
		r, err := h.Command(ctxGuard(t), "late-answer", "mcp", "answer "+n+" name=x")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.Error, "no open MCP request") {
			t.Errorf("answering an expired request: %q", r.Error)
		}
	})

	// The error path (-32042): the server wants a browser step before the call can run.
	t.Run("url required", func(t *testing.T) {
		args := map[string]any{"server": "everything", "tool": "trigger-url-elicitation", "arguments": map[string]any{
			"url": "https://example.com/other", "errorPath": true}}
		res, err := h.CallTool(ctxGuard(t), "need-url", CallToolName, args)
		if err != nil {
			t.Fatal(err)
		}
		want := "https://modelcontextprotocol.io — Open this link to satisfy the prerequisite"
		if !res.IsError || !strings.Contains(res.Text(), want) || !strings.Contains(res.Text(), "call the tool again once they have finished") {
			t.Errorf("url-required result (is_error %v):\n%s", res.IsError, res.Text())
		}
		if _, err := h.WaitNotify(ctxGuard(t), want); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(opened) != 0 {
			t.Errorf("opened %v without the user's accept", opened)
		}
	})
}

type modesElicitor struct{ form, url bool }

func (m modesElicitor) Modes() (bool, bool) { return m.form, m.url }
func (m modesElicitor) Elicit(context.Context, *interact.Elicitation) (*mcp.ElicitationResult, error) {
	return interact.Result(mcp.ElicitationResponseActionDecline, nil), nil
}

// TestElicitAdvertisedModes: the client capabilities carry exactly the modes the bridge
// handles: both in zot, the Elicitor's elsewhere, none when it handles none; in initialize
// in the legacy era, in the _meta of server/discover (as of every request) in the modern
// one.
func TestElicitAdvertisedModes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		elicitor interact.Elicitor
		want     string
	}{
		{"zot", nil, `{"form":{},"url":{}}`},
		{"form only", modesElicitor{form: true}, `{"form":{}}`},
		{"none", modesElicitor{}, `null`},
	}
	for _, tt := range tests {
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(tt.name+" "+era, func(t *testing.T) {
				got := make(chan string, 1)
				advertised := func(c *mcp.ClientCapabilities) {
					var elicit *mcp.ElicitationCapability
					if c != nil {
						elicit = c.Elicitation
					}
					raw, _ := json.Marshal(elicit)
					select {
					case got <- string(raw):
					default: // a later request: the first one is compared
					}
				}
				hooks := &server.Hooks{}
				hooks.AddAfterInitialize(func(_ context.Context, _ any, req *mcp.InitializeRequest, _ *mcp.InitializeResult) {
					advertised(&req.Params.Capabilities)
				})
				hooks.AddBeforeDiscover(func(_ context.Context, _ any, req *mcp.DiscoverRequest) {
					advertised(req.Params.Meta.ClientCapabilities())
				})
				mcpSrv := server.NewMCPServer("caps", "1.0.0", server.WithToolCapabilities(false), server.WithHooks(hooks))
				ts := httptest.NewServer(server.NewStreamableHTTPServer(mcpSrv))
				// Registered before the bridge's cleanup, so it runs after the bridge closed
				// its listening stream (Close waits for open connections).
				t.Cleanup(ts.Close)
				e := newTestEnv(t)
				e.write(map[string]any{"r": map[string]any{"url": ts.URL + "/mcp", "transport": "streamable-http", "protocolVersion": era}}, nil)
				b := e.bridge(extension.GenNew)
				if tt.elicitor != nil {
					b.SetElicitor(tt.elicitor)
				}
				if err := e.srv(b, "r").Start(ctxGuard(t)); err != nil {
					t.Fatal(err)
				}
				select {
				case g := <-got:
					if g != tt.want {
						t.Errorf("advertised elicitation %s, want %s", g, tt.want)
					}
				case <-ctxGuard(t).Done():
					t.Fatal("the server saw no initialize or server/discover")
				}
			})
		}
	}
}
