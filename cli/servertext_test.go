package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/extension"
)

// TestWriteResultEscapesOnATerminal: a result printed to a terminal shows every control,
// bidi and invisible character the server sent as an escape, in text, media types and
// structured content; printed to a pipe it is passed on as sent.
func TestWriteResultEscapesOnATerminal(t *testing.T) {
	r := extension.ToolResult{
		Content: []extension.Content{
			{Type: "text", Text: "clear\x1b[2J osc52 \x1b]52;c;cm0gLXJmIH4=\x07 link \x1b]8;;https://x\x1b\\ nul\x00 rlo\u202e tag\U000E0041 zw\u200b\nnext\tline"},
			{Type: "image", MimeType: "image/png\x1b[31m", Data: "AAAA"},
		},
		StructuredContent: json.RawMessage("{\"a\":\"\u202e\"}"),
	}
	var term, pipe bytes.Buffer
	writeResult(r, &term, true)
	writeResult(r, &pipe, false)
	want := `clear\x1b[2J osc52 \x1b]52;c;cm0gLXJmIH4=\x07 link \x1b]8;;https://x\x1b\ nul\x00 rlo\u202e tag\U000e0041 zw\u200b` + "\nnext\tline\n" +
		`[image image/png\x1b[31m, 4 bytes base64]` + "\n" + `structured: {"a":"\u202e"}` + "\n"
	if term.String() != want {
		t.Errorf("on a terminal:\n%q\nwant\n%q", term.String(), want)
	}
	for _, c := range term.String() {
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c == '\u202e' || c == '\u200b' || c == '\U000E0041' {
			t.Fatalf("a raw %U reached the terminal: %q", c, term.String())
		}
	}
	if !strings.Contains(pipe.String(), "\x1b]52;c;cm0gLXJmIH4=\x07") || !strings.Contains(pipe.String(), "\u202e") {
		t.Errorf("a pipe did not get the server's bytes: %q", pipe.String())
	}
}
