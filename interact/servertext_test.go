package interact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestElicitServerTextIsSafe: a question's message, field titles, descriptions and
// choice titles are kept sanitized; the field names, values and defaults the user types
// back are shown escaped; a URL with a hidden character is refused. So neither the note
// in zot nor the CLI's prompt carries a control sequence of the server's.
func TestElicitServerTextIsSafe(t *testing.T) {
	var schema any
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{
		"na\u001bme":{"type":"string","title":"Name\u001b[2J","description":"your\u202e name\u0007","default":"x\u001b]52;c;eA==\u0007"},
		"color":{"type":"string","enum":["r\u200bed","blue"],"enumNames":["Red\u001b[31m","Blue"]}}}`), &schema); err != nil {
		t.Fatal(err)
	}
	q, err := NewElicitation("srv", mcp.ElicitationParams{Message: "Tell me\x1b]8;;https://x\x07 now\U000E0041", RequestedSchema: schema}, nil)
	if err != nil {
		t.Fatal(err)
	}
	note := q.NoteText()
	for _, r := range note {
		if r < 0x20 && r != '\n' || r == '\u202e' || r == '\u200b' || r == '\U000E0041' {
			t.Fatalf("the note carries %U:\n%q", r, note)
		}
	}
	for _, want := range []string{"asks (request 0): Tell me]8;;https://x now", `na\x1bme (string): your name`, `default: x\x1b]52;c;eA==\x07`,
		`one of: r\u200bed (Red[31m), blue (Blue)`} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
	_, err = NewElicitation("srv", mcp.ElicitationParams{Mode: mcp.ElicitationModeURL, Message: "log in", URL: "https://example.com/\u202egpj.exe"},
		func(string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "control or invisible characters") {
		t.Errorf("a URL with a bidi override: %v", err)
	}
}
