package extension

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
)

// notesIn returns the messages of the notify frames among frames, in order.
func notesIn(t *testing.T, frames []exttest.Frame) []string {
	t.Helper()
	var out []string
	for _, f := range frames {
		if f.Type != "notify" {
			continue
		}
		var n exttest.Notify
		if err := f.Decode(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n.Message)
	}
	return out
}

// TestScreenNotesWaitForUI: with a Screen, a note reaches the host only once the host can
// draw it: a moment after session_start, after the fallback wait when no session_start
// comes, or at once when a command or tool call shows that the UI is up; notes still held
// go out before the connection ends. The extension subscribes to session_start before
// ready. Notes queued before ready would be in the host's buffer before ready if they
// were not held, so their absence there is seen without waiting.
func TestScreenNotesWaitForUI(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ack     exttest.Ack
		release func(x *harness, c *clock.Fake) error
		ends    bool // release ends the connection
	}{
		{"session_start, then the host builds its UI", legacyAck(), func(x *harness, c *clock.Fake) error {
			if err := x.host.Send(map[string]any{"type": "event", "event": "session_start"}); err != nil {
				return err
			}
			return c.AdvanceWhenSet(x.ctx, uiSettle)
		}, false},
		{"no session_start (a reload): the fallback wait", legacyAck(), func(x *harness, c *clock.Fake) error {
			return c.AdvanceWhenSet(x.ctx, uiFallback)
		}, false},
		{"a command comes from a UI that is up", newAck(), func(x *harness, c *clock.Fake) error {
			_, err := x.host.Command(x.ctx, "c1", "cmd", "")
			return err
		}, false},
		{"a tool call comes from a UI that is up", legacyAck(), func(x *harness, c *clock.Fake) error {
			_, err := x.host.CallTool(x.ctx, "t1", "tool", nil)
			return err
		}, false},
		{"shutdown: the held notes go out first", legacyAck(), func(x *harness, c *clock.Fake) error {
			return x.host.Shutdown(x.ctx)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := clock.NewFake()
			sessc := make(chan *Session, 1)
			h := &testHandler{setup: func(ctx context.Context, s *Session) error {
				s.Notify("warn", "first")
				s.Notify("info", "second")
				return sessionOf(sessc)(ctx, s)
			}}
			x := startRun(t, h, Options{Screen: &Screen{Clock: c}}, hooks{})
			// By hand, not Handshake, which sends session_start as zot does.
			x.host.ExpectHello(x.ctx)
			if err := x.host.SendAck(tc.ack); err != nil {
				t.Fatal(err)
			}
			ready, err := x.host.NextType(x.ctx, "ready")
			if err != nil {
				t.Fatal(err)
			}
			regs := x.host.Pending()
			if i := slices.IndexFunc(regs, func(f exttest.Frame) bool { return f.Type == "subscribe" }); i < 0 || regs[i].Seq > ready.Seq || !strings.Contains(string(regs[i].Raw), `"events":["session_start"]`) {
				t.Fatalf("no subscribe to session_start before ready: %v", regs)
			}
			if got := notesIn(t, x.host.Pending()); len(got) > 0 {
				t.Fatalf("notes before the host's UI is up: %q", got)
			}
			if err := tc.release(x, c); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"first", "second"} {
				if _, err := x.host.WaitNotify(x.ctx, want); err != nil {
					t.Fatal(err)
				}
			}
			// Once open, a note goes out at once.
			recv(t, x.ctx, sessc, "session").Notify("info", "third")
			if !tc.ends {
				if _, err := x.host.WaitNotify(x.ctx, "third"); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestScreenNotesOrder: the held notes keep their order, go out before what the event
// that opened the gate answers, and a clear_notes while they are held drops them
// without being sent (nothing of them was shown).
func TestScreenNotesOrder(t *testing.T) {
	c := clock.NewFake()
	h := &testHandler{setup: func(ctx context.Context, s *Session) error {
		s.Notify("info", "dropped")
		s.ClearNotes()
		s.Notify("info", "kept 1")
		s.Notify("info", "kept 2")
		return nil
	}}
	x := startRun(t, h, Options{Screen: &Screen{Clock: c}}, hooks{})
	x.handshake(newAck())
	r, err := x.host.Command(x.ctx, "c1", "cmd", "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range x.host.Pending() {
		if f.Seq < r.Frame.Seq && (f.Type == "notify" || f.Type == "clear_notes") {
			got = append(got, f.Type+":"+string(f.Raw))
		}
	}
	if len(got) != 2 || !strings.Contains(got[0], "kept 1") || !strings.Contains(got[1], "kept 2") {
		t.Errorf("frames before the command's response: %q, want the notes kept 1 and kept 2", got)
	}
}

// TestScreenDisplayRedraw: a display answer is followed by a note without text, which
// makes the host redraw (it shows nothing for it), and by one more after redrawAgain;
// other answers are not.
func TestScreenDisplayRedraw(t *testing.T) {
	for _, tc := range []struct {
		name   string
		resp   CommandResponse
		screen bool
		redraw bool
	}{
		{"display", CommandResponse{Action: "display", Display: "dashboard"}, true, true},
		{"noop", CommandResponse{Action: "noop"}, true, false},
		{"prompt", CommandResponse{Action: "prompt", Prompt: "p"}, true, false},
		{"display without a screen", CommandResponse{Action: "display", Display: "dashboard"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &testHandler{cmd: func(context.Context, Command) CommandResponse { return tc.resp }}
			opts := Options{}
			c := clock.NewFake()
			if tc.screen {
				opts.Screen = &Screen{Clock: c}
			}
			x := startRun(t, h, opts, hooks{})
			x.handshake(legacyAck())
			if _, err := x.host.Command(x.ctx, "c1", "mcp", ""); err != nil {
				t.Fatal(err)
			}
			if tc.redraw {
				if err := c.AdvanceWhenSet(x.ctx, redrawAgain); err != nil {
					t.Fatal(err)
				}
			}
			// The frames the extension writes after the response: end the run to see all.
			if err := x.host.Shutdown(x.ctx); err != nil {
				t.Fatal(err)
			}
			var redraws int
			for _, f := range x.host.Pending() {
				if f.Type == "notify" && strings.Contains(string(f.Raw), `"message":""`) {
					redraws++
				}
			}
			if want := map[bool]int{true: 2, false: 0}[tc.redraw]; redraws != want {
				t.Errorf("%d empty notes after the answer, want %d (frames %v)", redraws, want, x.host.Pending())
			}
		})
	}
}

// TestScreenWidth: text is laid out for the terminal less the tag the host puts before
// each line ("[<extension>] " before a note, the command's or the extension's name before
// a display answer, the longer counts): the command is told its width, and what it
// returns and every note are wrapped to it. An unknown width is DefaultColumns; a tiny
// one MinColumns.
func TestScreenWidth(t *testing.T) {
	long := strings.Repeat("word ", 40) + "end"
	for _, tc := range []struct {
		cols, want int // want: the columns of text behind "[mcp-bridge] ", the last one left empty
	}{
		{100, 100 - 13 - 1},
		{60, 60 - 13 - 1},
		{0, DefaultColumns - 13 - 1},
		{10, MinColumns - 13 - 1},
	} {
		widths := make(chan int, 1)
		h := &testHandler{
			setup: func(_ context.Context, s *Session) error { s.Notify("warn", long); return nil },
			cmd: func(_ context.Context, c Command) CommandResponse {
				widths <- c.Width
				return CommandResponse{Action: "display", Display: long}
			},
		}
		cols := tc.cols
		x := startRun(t, h, Options{Name: "mcp-bridge", Screen: &Screen{Columns: func() int { return cols }, Clock: clock.NewFake()}}, hooks{})
		x.handshake(newAck())
		r, err := x.host.Command(x.ctx, "c1", "mcp", "")
		if err != nil {
			t.Fatal(err)
		}
		if w := recv(t, x.ctx, widths, "width"); w != tc.want {
			t.Errorf("%d columns: the command was given %d columns, want %d", tc.cols, w, tc.want)
		}
		n, err := x.host.WaitNotify(x.ctx, "word")
		if err != nil {
			t.Fatal(err)
		}
		for what, text := range map[string]string{"display": r.Display, "note": n.Message} {
			if strings.Join(strings.Fields(text), " ") != strings.TrimSpace(long) {
				t.Errorf("%d columns: the %s lost words: %q", tc.cols, what, text)
			}
			lines := strings.Split(text, "\n")
			for _, l := range lines {
				if utf8.RuneCountInString(l) > tc.want {
					t.Errorf("%d columns: a line of the %s is %d long: %q", tc.cols, what, utf8.RuneCountInString(l), l)
				}
			}
			if len(lines) < 2 {
				t.Errorf("%d columns: the %s was not wrapped: %q", tc.cols, what, text)
			}
		}
	}
}
