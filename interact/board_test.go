package interact

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
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

// boardEnv is a note board and progress tracker on the session of an extension behind
// the fake host, on a fake clock, and what the host's screen shows of the board.
type boardEnv struct {
	t        *testing.T
	h        *exttest.Host
	k        *sessionKeeper
	clock    *clock.Fake
	notes    *NoteBoard
	progress *Progress

	mark   int      // Seq of the last sentinel: frames before it are counted
	screen []string // the notes the host shows, from the frames counted so far
}

// newBoard runs an extension behind the fake host and makes the board on its session
// after a handshake with a host of the given capabilities (nil: a legacy host).
func newBoard(t *testing.T, caps []string) *boardEnv {
	t.Helper()
	k := &sessionKeeper{}
	h := exttest.Serve(t, guard, func(in io.Reader, out io.Writer) error {
		return extension.Run(context.Background(), in, out, k, extension.Options{Name: "mcp"})
	})
	h.ExpectHello(ctxGuard(t))
	ack := exttest.Ack{Cwd: t.TempDir()}
	if caps != nil {
		ack.Capabilities = caps
	}
	h.Handshake(ctxGuard(t), ack)
	c := clock.NewFake()
	notes := NewNoteBoard(c, k.sess.Load, nil)
	return &boardEnv{t: t, h: h, k: k, clock: c, notes: notes, progress: NewProgress(notes), mark: -1}
}

// frames returns the note frames (notify, clear_notes) the board sent since the last call
// and plays them on the screen: a sentinel written straight to the session marks where
// they end.
func (e *boardEnv) frames() []exttest.Frame {
	e.t.Helper()
	sentinel := fmt.Sprintf("sentinel after frame %d", e.mark)
	e.k.sess.Load().Notify("info", sentinel)
	n, err := e.h.WaitNotify(ctxGuard(e.t), sentinel)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []exttest.Frame
	for _, f := range e.h.Pending() {
		if f.Seq <= e.mark || f.Seq > n.Frame.Seq {
			continue
		}
		switch f.Type {
		case "clear_notes":
			e.screen = nil
		case "notify":
			var m exttest.Notify
			if err := f.Decode(&m); err != nil {
				e.t.Fatal(err)
			}
			e.screen = append(e.screen, m.Message)
		default:
			continue
		}
		out = append(out, f)
	}
	e.mark = n.Frame.Seq
	return out
}

// bytesOf is the size of the frames as written.
func bytesOf(frames []exttest.Frame) int {
	n := 0
	for _, f := range frames {
		n += len(f.Raw) + 1
	}
	return n
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
			e := newBoard(t, tt.caps)
			notes, progress := e.notes, e.progress
			cctx, end := progress.BeginFunc(context.Background(), "s", "slow", nil)
			token := ProgressMeta(cctx).ProgressToken
			progress.Update("s", mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 2})
			progress.Update("other", mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 4}) // not its call
			progress.Update("s", mcp.ProgressNotificationParams{ProgressToken: token, Progress: 2, Total: 2})
			end()
			progress.Update("s", mcp.ProgressNotificationParams{ProgressToken: token, Progress: 3, Total: 2}) // after the end
			notes.SetGeneral("info", "general note")
			e.clock.Advance(time.Second) // past the pace: the updates that waited go
			n := 0
			for _, f := range e.frames() {
				if f.Type == "notify" && strings.Contains(string(f.Raw), "s slow:") {
					n++
				}
			}
			if n != tt.notes {
				t.Fatalf("%d progress notes, want %d", n, tt.notes)
			}
			if !slices.Equal(e.screen, []string{"general note"}) {
				t.Fatalf("the host shows %q, want the general note only", e.screen)
			}
		})
	}
}

// TestPinnedNoteSurvivesProgress: a pinned note (a question for the user) stays on screen
// while a call's progress note is replaced and removed, and goes when unpinned.
func TestPinnedNoteSurvivesProgress(t *testing.T) {
	e := newBoard(t, []string{"call_tool"})
	notes, progress := e.notes, e.progress
	notes.Pin("q1", "warn", "question 1")
	cctx, end := progress.BeginFunc(context.Background(), "s", "slow", nil)
	token := ProgressMeta(cctx).ProgressToken
	progress.Update("s", mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 2})
	end()
	notes.Unpin("q1")
	notes.SetGeneral("info", "done")
	e.clock.Advance(time.Second)
	var shown []string
	questionAlways := true
	for _, f := range e.frames() {
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
	if !slices.Equal(shown, []string{"done"}) {
		t.Fatalf("the host shows %q, want the last general note only", shown)
	}
}
