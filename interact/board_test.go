package interact

import (
	"context"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/extension/exttest"
)

// guard bounds waits so a broken test fails instead of hanging; never a measurement.
const guard = 60 * time.Second

func ctxGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	return ctx
}

// sessionKeeper is an extension that only keeps its host session, for the board.
type sessionKeeper struct {
	sess atomic.Pointer[extension.Session]
}

func (k *sessionKeeper) Setup(_ context.Context, s *extension.Session) error {
	k.sess.Store(s)
	return nil
}

func (k *sessionKeeper) CallTool(context.Context, extension.ToolCall) extension.ToolResult {
	return extension.ToolResult{}
}

func (k *sessionKeeper) RunCommand(context.Context, extension.Command) extension.CommandResponse {
	return extension.CommandResponse{}
}

// boardHost runs an extension behind the fake host and returns a note board and progress
// tracker on its session (nil until the test's handshake).
func boardHost(t *testing.T) (*exttest.Host, *NoteBoard, *Progress) {
	t.Helper()
	k := &sessionKeeper{}
	h := exttest.Serve(t, guard, func(in io.Reader, out io.Writer) error {
		return extension.Run(context.Background(), in, out, k, extension.Options{Name: "mcp"})
	})
	h.ExpectHello(ctxGuard(t))
	notes := NewNoteBoard(k.sess.Load, nil)
	return h, notes, NewProgress(notes)
}

func TestLegacyHostGetsNoProgressNotes(t *testing.T) {
	for _, tt := range []struct {
		name  string
		caps  []string
		notes int // progress notes expected
	}{
		{"new host", []string{"call_tool"}, 2},
		{"legacy host", nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, notes, progress := boardHost(t)
			ctx := ctxGuard(t)
			ack := exttest.Ack{Cwd: t.TempDir()}
			if tt.caps != nil {
				ack.Capabilities = tt.caps
			}
			h.Handshake(ctx, ack)
			cctx, end := progress.Begin(context.Background(), "s", "slow")
			token := ProgressMeta(cctx).ProgressToken
			progress.Update("s", mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 2})
			progress.Update("other", mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 4}) // not its call
			progress.Update("s", mcp.ProgressNotificationParams{ProgressToken: token, Progress: 2, Total: 2})
			end()
			progress.Update("s", mcp.ProgressNotificationParams{ProgressToken: token, Progress: 3, Total: 2}) // after the end
			notes.SetGeneral("info", "general note")
			if _, err := h.WaitNotify(ctx, "general note"); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, f := range h.Pending() {
				if f.Type == "notify" && strings.Contains(string(f.Raw), "s slow:") {
					n++
				}
			}
			if n != tt.notes {
				t.Fatalf("%d progress notes, want %d", n, tt.notes)
			}
		})
	}
}

// TestPinnedNoteSurvivesProgress: a pinned note (a question for the user) stays on screen
// while a call's progress note is replaced and removed, and goes when unpinned.
func TestPinnedNoteSurvivesProgress(t *testing.T) {
	h, notes, progress := boardHost(t)
	ctx := ctxGuard(t)
	h.Handshake(ctx, exttest.Ack{Cwd: t.TempDir(), Capabilities: []string{"call_tool"}})
	notes.Pin("q1", "warn", "question 1")
	cctx, end := progress.Begin(context.Background(), "s", "slow")
	token := ProgressMeta(cctx).ProgressToken
	progress.Update("s", mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 2})
	end()
	notes.Unpin("q1")
	notes.SetGeneral("info", "done")
	if _, err := h.WaitNotify(ctx, "done"); err != nil {
		t.Fatal(err)
	}
	var shown []string
	questionAlways := true
	for _, f := range h.Pending() {
		switch f.Type {
		case "clear_notes":
			shown = nil
		case "notify":
			var n exttest.Notify
			_ = f.Decode(&n)
			shown = append(shown, n.Message)
			if strings.HasPrefix(n.Message, "s slow") && !slices.Contains(shown, "question 1") {
				questionAlways = false
			}
		}
	}
	if !questionAlways {
		t.Fatal("the progress note replaced the pinned question")
	}
	// WaitNotify took the final "done" note, which followed the last clear_notes.
	if len(shown) != 0 {
		t.Fatalf("before the last general note the host still showed %q", shown)
	}
}
