package extension

import (
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// Screen is the terminal an interactive zot draws on. What the user reads there follows
// three rules of the host, read in its source and seen on the released binary:
//
//   - Each line of a note (notify) and of a command's display answer is shown behind a
//     "[name] " tag and cut at the terminal's edge, so text is wrapped to the columns
//     that are left.
//   - A note that arrives before the host's UI exists is dropped. The UI is built after
//     the host has waited for every extension's ready and sent session_start, so notes
//     are held until a moment after session_start (or after a fallback wait when none
//     comes, as on /reload-ext), or until a command or tool call shows the UI is up.
//   - A display answer is drawn only at the next redraw, which a typed command does not
//     cause; a note does, even an empty one (the host shows nothing for it), so one
//     follows every display answer, and one more a moment later.
//
// Options.Screen nil (tests, harnesses) sends text as it is and notes at once.
type Screen struct {
	// Columns returns the terminal's width; 0 (or nil) when unknown, and then
	// DefaultColumns is assumed.
	Columns func() int
	// Clock times the wait for the host's UI; nil is the system clock.
	Clock clock.Clock
}

// DefaultColumns is the terminal width assumed when the real one is unknown.
const DefaultColumns = 80

// MinColumns is the narrowest width text is laid out for, whatever the terminal says.
const MinColumns = 40

const (
	// uiSettle is how long after session_start a note is held: the host still opens
	// its session, reads its config, asks the terminal for its colours (a query it
	// waits up to 80 ms for) and builds its UI.
	uiSettle = 500 * time.Millisecond
	// uiFallback is how long after ready notes are held when no session_start comes
	// (a /reload-ext, whose UI is already up): the host waits up to 3 s for every
	// extension's ready before it sends session_start.
	uiFallback = 3*time.Second + uiSettle
	// maxHeld is how many notes are held at most; the oldest go first.
	maxHeld = 32
	// redrawAgain is when the second redraw follows a display answer.
	redrawAgain = 200 * time.Millisecond
)

// sessionStartFrame subscribes to the event the notes wait for.
const sessionStartFrame = `{"type":"subscribe","events":["session_start"]}`

// redrawFrame is a note without text: the host adds nothing to the screen and redraws.
const redrawFrame = `{"type":"notify","level":"info","message":""}`

// columns is the screen's width, never below MinColumns.
func (sc *Screen) columns() int {
	c := 0
	if sc.Columns != nil {
		c = sc.Columns()
	}
	if c <= 0 {
		c = DefaultColumns
	}
	return max(c, MinColumns)
}

// textWidth is how many columns a line tagged "[tag] " has, for every tag given. The
// last column is left empty: a row that fills it looks the same as one the terminal cut
// at its edge, and a terminal that wraps when the last column is written moves the next
// row down by one.
func (sc *Screen) textWidth(tags ...string) int {
	n := 0
	for _, t := range tags {
		n = max(n, len("["+t+"] "))
	}
	return sc.columns() - n - 1
}

func (sc *Screen) clock() clock.Clock {
	if sc.Clock == nil {
		return clock.System{}
	}
	return sc.Clock
}

// noteGate holds notes until the host's UI can show them. The zero value is open (no
// Screen: every note goes out at once).
type noteGate struct {
	mu     sync.Mutex
	closed bool     // notes are held
	held   [][]byte // notify frames waiting, in order
	timers []clock.Timer
}

// send writes the notify frame b, or holds it while the gate is closed.
func (g *noteGate) send(w *writer, b []byte) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		return w.send(outFrame{b: b})
	}
	if len(g.held) == maxHeld {
		g.held = append(g.held[:0], g.held[1:]...)
	}
	g.held = append(g.held, b)
	return true
}

// clear drops the held notes and reports whether the gate was open. Nothing held has
// been shown, so while the gate is closed there is nothing for clear_notes to take back.
func (g *noteGate) clear() (open bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held = nil
	return !g.closed
}

// after opens the gate once d has passed on c; why says what the wait followed (logged).
func (g *noteGate) after(c clock.Clock, d time.Duration, w *writer, log zerolog.Logger, why string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		g.timers = append(g.timers, c.AfterFunc(d, func() { g.open(w, log, why) }))
	}
}

// open writes the held notes in order and lets every later note through; why says what
// showed that the host's UI is up (logged).
func (g *noteGate) open(w *writer, log zerolog.Logger, why string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		return
	}
	log.Debug().Str("after", why).Int("held", len(g.held)).Msg("notes go out")
	g.closed = false
	for _, b := range g.held {
		w.send(outFrame{b: b})
	}
	g.held = nil
	for _, t := range g.timers {
		t.Stop()
	}
	g.timers = nil
}
