package textwrap

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrap(t *testing.T) {
	long := strings.Repeat("x", 130)
	for _, tc := range []struct {
		name, in, want string
		width          int
	}{
		{"short lines stay", "a  b\n  c", "a  b\n  c", 100},
		{"wraps at spaces with deeper indent", "  " + strings.Repeat("word ", 25),
			"  " + strings.TrimSpace(strings.Repeat("word ", 19)) + "\n      " + strings.TrimSpace(strings.Repeat("word ", 6)), 100},
		{"keeps aligned columns", "  command:    " + strings.Repeat("arg ", 30),
			"  command:    " + strings.TrimSpace(strings.Repeat("arg ", 21)) + "\n      " + strings.TrimSpace(strings.Repeat("arg ", 9)), 100},
		{"cuts a word longer than a line", "p: " + long, "p:\n    " + long[:96] + "\n    " + long[96:], 100},
		{"a run of spaces at the break is dropped", "aaaa    bbbb", "aaaa\n    bbbb", 8},
		{"cuts by runes, not bytes", "é" + strings.Repeat("ü", 9), "éüüüü\n  üüü\n  üü", 5},
		{"narrower than the indentation", "      abc def", "   abc\n   def", 6},
		{"width one", "ab c", "a\nb\nc", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Wrap(tc.in, tc.width)
			if got != tc.want {
				t.Errorf("Wrap(%d):\n%q\nwant\n%q", tc.width, got, tc.want)
			}
			for _, l := range strings.Split(got, "\n") {
				if n := utf8.RuneCountInString(l); n > tc.width {
					t.Errorf("line of %d columns: %q", n, l)
				}
			}
		})
	}
}

// TestWrapKeepsEveryWord: whatever the width, every word of a message is in its wrapped
// form, whole and in order, and no line is longer than the width. The messages are the
// kind the bridge shows: long sentences whose end says what to do.
func TestWrapKeepsEveryWord(t *testing.T) {
	msgs := []string{
		"MCP: approve with /mcp trust all, then /reload-ext: 1 project server in /home/you/project needs your approval before it runs: filesystem (runs `npx -y @modelcontextprotocol/server-filesystem /tmp`)",
		"/home/you/.local/state/zot/mcp.json: server \"github\": env.GITHUB_TOKEN: environment variable GITHUB_TOKEN is not set (set it or use ${GITHUB_TOKEN:-default})",
		"/home/you/project/.zot/mcp.json: not valid JSON/JSONC (line 3, column 5: invalid character '}'); fix the syntax (comments and trailing commas are allowed)",
		"  linear               failed        0 tools  https://mcp.linear.app/sse\n      — cannot reach https://mcp.linear.app/sse: dial tcp: lookup mcp.linear.app: no such host; check the connection and the URL, then /mcp restart linear",
	}
	for _, width := range []int{60, 80, 100} {
		for _, prefix := range []string{"", "[mcp] ", "[mcp-bridge] "} {
			cols := width - len(prefix)
			for _, m := range msgs {
				got := Wrap(m, cols)
				if w, g := strings.Fields(m), strings.Fields(got); !slices.Equal(w, g) {
					t.Errorf("at %d columns after %q, words changed:\n%q\nbecame\n%q", width, prefix, m, got)
				}
				for _, l := range strings.Split(got, "\n") {
					if n := utf8.RuneCountInString(prefix + l); n > width {
						t.Errorf("at %d columns, a line of %d: %q", width, n, prefix+l)
					}
				}
			}
		}
	}
}

// TestWrapLinear: a word far longer than a line (a path the size of a whole file) costs
// work in proportion to its length. Bytes allocated are the measure: a wrap that copies
// the rest of the word for every line it cuts allocates in proportion to the square of
// the length (hundreds of megabytes here), this one to the length.
func TestWrapLinear(t *testing.T) {
	for _, n := range []int{64 << 10, 1 << 20} {
		word := "/" + strings.Repeat("é", n/2)
		in := "  cwd: " + word + " end"
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := Wrap(in, 80)
		runtime.ReadMemStats(&after)
		if alloc, limit := after.TotalAlloc-before.TotalAlloc, uint64(16*len(in)+64<<10); alloc > limit {
			t.Errorf("wrapping a %d-byte word allocated %d bytes, want at most %d", len(word), alloc, limit)
			break // the longer word would take minutes
		}
		if strings.ReplaceAll(strings.ReplaceAll(got, "\n", ""), " ", "") != strings.ReplaceAll(in, " ", "") {
			t.Errorf("wrapping a %d-byte word lost or changed characters", len(word))
		}
	}
}

func TestShorten(t *testing.T) {
	for _, tc := range []struct {
		in   string
		cols int
		want string
	}{
		{"short", 10, "short"},
		{"cannot reach the connection refused", 20, "cannot reach the…"},
		{"cannot reach: the", 15, "cannot reach…"},
		{"averyveryverylongword and more", 10, "averyvery…"},
		{"é é é é é", 6, "é é é…"}, {"é é é é é", 5, "é é…"},
		{"abc", 1, "…"},
	} {
		got := Shorten(tc.in, tc.cols)
		if got != tc.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", tc.in, tc.cols, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > max(tc.cols, 1) {
			t.Errorf("Shorten(%q, %d) is %d columns", tc.in, tc.cols, n)
		}
	}
}

func BenchmarkWrapLongWord(b *testing.B) {
	in := "  cwd: /" + strings.Repeat("a", 1<<20)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		Wrap(in, 80)
	}
}
