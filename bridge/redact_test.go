package bridge

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// TestMessagesShowReferencesAndMaskCredentials: an expanded ${VAR} (here the url's host)
// used to appear in refresh errors, /mcp and the log, and literal tokens in a url path or
// in args were shown as written. Every message now shows the reference and masks
// credentials.
func TestMessagesShowReferencesAndMaskCredentials(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.env["MCP_HOST"] = "secret-host-name.example"
	e.env["TOK"] = "tok_ABCDEFGHIJ123456"
	const pathToken, argToken = "ghp_abcdefghijklmnop1234567890", "abcdefghijklmnopqrstuvwxyz123456"
	e.write(map[string]any{
		"r": map[string]any{"url": "https://${MCP_HOST}/mcp/" + pathToken + "?key=${TOK}&api_key=literalsecret123456"},
		"s": map[string]any{"command": e.fake, "args": []string{"-marker", e.marker, "--token", argToken, "-exit-on-start"}},
	}, nil)
	var logBuf testutil.SyncBuffer
	b := New(Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(&logBuf),
		Supervisor: supervisorArgv(), Connect: e.connect(), Resolver: noDNS()})
	b.Load(e.project, extension.GenNew)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		b.Close(ctx)
	})
	_, errs := b.Refresh(ctxGuard(t), []string{"r", "s"})
	texts := append([]string(nil), errs...)
	texts = append(texts, b.statusText(), b.detailText("r"), b.detailText("s"), logBuf.String())
	all := strings.Join(texts, "\n")
	for _, secret := range []string{"secret-host-name.example", pathToken, argToken, "tok_ABCDEFGHIJ123456", "literalsecret123456"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q appears in a message:\n%s", secret, all)
		}
	}
	if !strings.Contains(all, `cannot resolve host "${MCP_HOST}"`) || !strings.Contains(b.detailText("r"), "https://${MCP_HOST}/mcp/[redacted]?…") {
		t.Errorf("the configured text is not shown:\n%s", all)
	}
	if !strings.Contains(b.detailText("s"), "--token [redacted]") {
		t.Errorf("/mcp s shows the arg token:\n%s", b.detailText("s"))
	}
}
