package toolresult

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/toolresult/spill"
)

// fakeSpill records what it is asked to save.
type fakeSpill struct {
	saved [][]string
	err   error
}

func (f *fakeSpill) Save(blocks []string) (string, error) {
	f.saved = append(f.saved, blocks)
	return "/home/u/.zot/mcp-results/r1.txt", f.err
}

// TestCutResultIsSpilled: a result over the text budget is cut for the model and handed
// whole to the budget's Spill, and the marker names the file; a result within the budget
// is not saved; without a Spill, or when saving fails, the marker says to ask for less.
func TestCutResultIsSpilled(t *testing.T) {
	first, second := strings.Repeat("a", 800), strings.Repeat("b", 800)
	over := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(first), mcp.NewTextContent(second)}}
	tests := []struct {
		name      string
		res       *mcp.CallToolResult
		spill     *fakeSpill
		wantSaved bool
		want      []string
	}{
		{"over the budget", over, &fakeSpill{}, true, []string{"1000 of 1600 bytes", "the whole text is saved in /home/u/.zot/mcp-results/r1.txt", "file tools"}},
		{"saving fails", over, &fakeSpill{err: errors.New("disk full")}, true, []string{"could not be saved (disk full)", "ask the tool for less"}},
		{"no spill", over, nil, false, []string{"1000 of 1600 bytes", "ask the tool for less"}},
		{"within the budget", mcp.NewToolResultText("short"), &fakeSpill{}, false, []string{"short"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := Budget{Text: 1000 + 2*blockOverhead, Media: 10}
			if tc.spill != nil {
				b.Spill = tc.spill
			}
			out := Convert(tc.res, b)
			var text strings.Builder
			for _, c := range out.Content {
				text.WriteString(c.Text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text.String(), w) {
					t.Errorf("result %.300q lacks %q", text.String(), w)
				}
			}
			saved := tc.spill != nil && len(tc.spill.saved) > 0
			if saved != tc.wantSaved {
				t.Fatalf("saved %v, want %v", saved, tc.wantSaved)
			}
			if saved && strings.Join(tc.spill.saved[0], "") != first+second {
				t.Errorf("saved %d blocks, not the whole text", len(tc.spill.saved[0]))
			}
		})
	}
}

// TestSpillFileHoldsTheWholeResult: through the bridge's spill directory, the file the
// marker names exists, holds the whole text and is readable only by the user.
func TestSpillFileHoldsTheWholeResult(t *testing.T) {
	home := t.TempDir()
	big := strings.Repeat("0123456789\n", 30<<10)
	out := Convert(mcp.NewToolResultText(big), Budget{Text: DefaultBudget.Text, Media: DefaultBudget.Media, Spill: spill.New(home, clock.NewFake())})
	marker := out.Content[len(out.Content)-1].Text
	_, rest, ok := strings.Cut(marker, "saved in ")
	path, _, _ := strings.Cut(rest, ": read what is missing")
	if !ok || filepath.Dir(path) != filepath.Join(home, spill.DirName) {
		t.Fatalf("marker names no file in %s: %q", filepath.Join(home, spill.DirName), marker)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != big {
		t.Fatalf("file %s holds %d bytes (%v), want the whole %d", path, len(data), err, len(big))
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v, %v; want 0600", st.Mode().Perm(), err)
	}
}
