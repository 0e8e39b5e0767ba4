package interact

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// The board's bounds against servers that flood it: what the host is sent is counted in
// frames on the fake host, while the fake clock moves as the flood goes on.

// maxUpdates is what the pace lets the board update in d.
func maxUpdates(d time.Duration) int { return updateBurst + int(d/updateEvery) }

// progressStep is the i-th of n progress notifications of the call's token.
func progressStep(token any, i, n int) mcp.ProgressNotificationParams {
	return mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: float64(n), Message: fmt.Sprintf("step %d", i)}
}

// TestProgressFloodIsPaced: tens of thousands of progress notifications of calls are
// coalesced into a bounded number of updates and frames per second of the clock, and the
// last progress of every call reaches the screen once the flood stops.
func TestProgressFloodIsPaced(t *testing.T) {
	for _, tt := range []struct {
		name           string
		calls, steps   int
		tick           time.Duration // the clock moves this much after every round of steps
		wantDuration   time.Duration
		updatesBounded bool // few enough notes that the update pace, not the frame pace, binds
	}{
		{name: "one call", calls: 1, steps: 30000, tick: 100 * time.Microsecond, wantDuration: 3 * time.Second, updatesBounded: true},
		{name: "thirty calls of ten servers", calls: 30, steps: 200, tick: 10 * time.Millisecond, wantDuration: 2 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newBoard(t, []string{"call_tool"})
			tokens := make([]any, tt.calls)
			for i := range tokens {
				ctx, end := e.progress.BeginFunc(context.Background(), fmt.Sprintf("s%d", i%10), fmt.Sprintf("tool%d", i), nil)
				defer end()
				tokens[i] = ProgressMeta(ctx).ProgressToken
			}
			began := e.clock.Now()
			for step := 1; step <= tt.steps; step++ {
				for i, token := range tokens {
					e.progress.Update(fmt.Sprintf("s%d", i%10), progressStep(token, step, tt.steps))
				}
				e.clock.Advance(tt.tick)
			}
			took := e.clock.Now().Sub(began)
			if took != tt.wantDuration {
				t.Fatalf("the flood took %s of the clock, want %s", took, tt.wantDuration)
			}
			frames := e.frames()
			if len(frames) > NoteFramesWithin(took) {
				t.Errorf("%d frames in %s of the clock, want at most %d", len(frames), took, NoteFramesWithin(took))
			}
			updates := 0
			for i, f := range frames {
				if i == 0 || f.Type == "clear_notes" {
					updates++
				}
			}
			if tt.updatesBounded && updates > maxUpdates(took) {
				t.Errorf("%d updates in %s of the clock, want at most %d", updates, took, maxUpdates(took))
			}
			// The trailing update: once the clock moves on, every call shows its last step.
			e.clock.Advance(10 * time.Second)
			e.frames()
			if len(e.screen) != tt.calls {
				t.Fatalf("the host shows %d notes, want %d: %q", len(e.screen), tt.calls, e.screen)
			}
			for i, note := range e.screen {
				want := fmt.Sprintf("s%d tool%d: step %d 100%%", i%10, i, tt.steps)
				if note != want {
					t.Errorf("note %d is %q, want the last step %q", i, note, want)
				}
			}
		})
	}
}

// TestQuestionIsNotRewrittenByProgress: while a large question waits for the answer, the
// progress of a call does not send it again (it is sent once, whether the call's note came
// before it or after); the progress waits, and once the question goes the last step shows.
func TestQuestionIsNotRewrittenByProgress(t *testing.T) {
	question := "Which one?\n" + strings.Repeat("a long option ", 4600) // about 64 KB
	const steps = 2000
	for _, tt := range []struct {
		name          string
		progressFirst bool
	}{
		{"question first", false},
		{"progress first", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newBoard(t, []string{"call_tool"})
			ctx, end := e.progress.BeginFunc(context.Background(), "s", "slow", nil)
			defer end()
			token := ProgressMeta(ctx).ProgressToken
			if tt.progressFirst {
				e.progress.Update("s", progressStep(token, 0, steps))
			}
			e.notes.Pin("elicit:1", "warn", question)
			for step := 1; step <= steps; step++ {
				e.progress.Update("s", progressStep(token, step, steps))
				e.clock.Advance(time.Millisecond)
			}
			frames := e.frames()
			sent := 0
			for _, f := range frames {
				if bytes.Contains(f.Raw, []byte("a long option a long option")) {
					sent++
				}
			}
			if sent != 1 {
				t.Errorf("the question was sent %d times during the progress, want once", sent)
			}
			if n, limit := bytesOf(frames), len(question)+4096; n > limit {
				t.Errorf("%d bytes of frames during the progress, want at most %d", n, limit)
			}
			e.notes.Unpin("elicit:1")
			e.clock.Advance(time.Second)
			e.frames()
			if want := []string{fmt.Sprintf("s slow: step %d 100%%", steps)}; !slices.Equal(e.screen, want) {
				t.Fatalf("after the question the host shows %q, want %q", e.screen, want)
			}
		})
	}
}

// TestIdenticalGeneralNoteIsSentOnce: the same general note set again and again (a
// server's refused requests) is not sent again, and a question is sent once; a new text
// replaces the note where the host can clear notes and is added where it cannot.
func TestIdenticalGeneralNoteIsSentOnce(t *testing.T) {
	const refused = `MCP server "s" asked for sampling`
	for _, tt := range []struct {
		name   string
		caps   []string
		screen []string // in the end
	}{
		{"new host", []string{"call_tool"}, []string{"something else", "question"}},
		{"legacy host", nil, []string{refused, "question", "something else"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newBoard(t, tt.caps)
			for range 5000 {
				e.notes.SetGeneral("warn", refused)
			}
			e.notes.Pin("elicit:1", "warn", "question")
			for range 5000 {
				e.notes.SetGeneral("warn", refused)
			}
			if frames := e.frames(); len(frames) != 2 {
				t.Errorf("%d frames for one note set 10000 times and a question, want 2", len(frames))
			}
			e.notes.SetGeneral("info", "something else")
			e.clock.Advance(time.Second)
			e.frames()
			if !slices.Equal(e.screen, tt.screen) {
				t.Errorf("the host shows %q, want %q", e.screen, tt.screen)
			}
		})
	}
}

// TestQuestionsPerServerAreCapped: a server that asks hundreds of questions at once gets
// MaxOpenPerServer of them shown, each sent once; the rest are declined at once, the
// user is told why once, and our log says it once plus a count. The frames do not grow
// with the number of questions.
func TestQuestionsPerServerAreCapped(t *testing.T) {
	const frameLimit = 3 * (MaxOpenPerServer + 2) // pins, the refusal note, one rewrite
	for _, asked := range []int{100, 300} {
		t.Run(fmt.Sprintf("%d questions", asked), func(t *testing.T) {
			e := newBoard(t, []string{"call_tool"})
			var logBuf testutil.SyncBuffer
			env := AskEnv{Clock: e.clock, Budget: time.Hour, Log: zerolog.New(&logBuf), Notes: e.notes,
				Note: e.notes.SetGeneral, Hosted: true}
			var a Asker
			ctx, cancel := context.WithCancel(context.Background())
			results := make(chan *mcp.ElicitationResult, asked)
			var wg sync.WaitGroup
			for i := range asked {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, err := a.Ask(ctx, env, "s", mcp.ElicitationParams{Message: fmt.Sprintf("question %d", i),
						RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}}})
					if err == nil {
						results <- r
					}
				}()
			}
			defer func() { cancel(); wg.Wait() }()
			waitCtx := ctxGuard(t)
			for range asked - MaxOpenPerServer {
				select {
				case r := <-results:
					if r.Action != mcp.ElicitationResponseActionDecline {
						t.Fatalf("a question over the cap was answered %q, want decline", r.Action)
					}
				case <-waitCtx.Done():
					t.Fatal("the questions over the cap were not declined")
				}
			}
			if open := strings.Count(a.OpenList(), "(s)"); open != MaxOpenPerServer {
				t.Fatalf("%d questions open (%s), want %d", open, a.OpenList(), MaxOpenPerServer)
			}
			e.clock.Advance(time.Second) // the updates that waited for the pace
			frames := e.frames()
			if len(frames) > frameLimit {
				t.Errorf("%d frames for %d questions, want at most %d", len(frames), asked, frameLimit)
			}
			reasons, shown := 0, 0
			for _, f := range frames {
				if bytes.Contains(f.Raw, []byte("the bridge declined it")) {
					reasons++
				}
			}
			for _, note := range e.screen {
				if strings.HasPrefix(note, `MCP server "s" asks`) {
					shown++
				}
			}
			if reasons != 1 || shown != MaxOpenPerServer {
				t.Errorf("the reason was sent %d times (want 1) and the host shows %d questions (want %d): %q",
					reasons, shown, MaxOpenPerServer, e.screen)
			}
			e.clock.Advance(declineWindow)
			log := logBuf.String()
			declined := fmt.Sprintf(`"declined":%d`, asked-MaxOpenPerServer-1)
			if n := strings.Count(log, "elicitation request declined"); n != 1 || !strings.Contains(log, declined) {
				t.Errorf("the log has %d lines for a declined question (want 1) and no %s:\n%s", n, declined, log)
			}
		})
	}
}
