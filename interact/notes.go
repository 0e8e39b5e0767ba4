// Package interact is what the user is shown and asked while tool calls run: the note
// board (the bridge's note and one live note per call), per-call progress notes, and the
// typing and validation of a server's questions (elicitation forms). It knows the host
// session and MCP's message shapes, not the bridge's servers or catalog.
package interact

import (
	"sync"
	"time"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// What the board may send the host, for every server together: servers decide how often
// their progress, questions and refusals change the notes, so the board, not they,
// decides how often the host hears of it.
const (
	// updateEvery is the sustained pace of updates of the host's notes (updateBurst may go
	// at once): changes that come faster are coalesced, the latest winning.
	updateEvery = 250 * time.Millisecond
	updateBurst = 16
	// frameEvery is the sustained pace of note frames (notify and clear_notes), frameBurst
	// how many may go at once.
	frameEvery = 50 * time.Millisecond
	frameBurst = 64
)

// NoteFramesWithin is the most note frames (notify, clear_notes) a board sends to the host
// within d, for every server together.
func NoteFramesWithin(d time.Duration) int { return frameBurst + int(d/frameEvery) }

// generalKey is the general note's key among the board's notes; live keys are progress
// tokens and "elicit:<n>".
const generalKey = "\x00general"

// NoteBoard is every note the bridge shows at one time: its general note (the last one
// SetGeneral showed), one live note per call that reports progress and one pinned note per
// question that waits for an answer. The host can only add a note or clear all of an
// extension's notes at once (clear_notes), on every generation, so the board keeps what
// it sent since its last clear_notes and sends the least that makes the host show the
// board: a note added after the others is only sent; a note replaced or taken away means
// clearing and sending the remaining ones again. (The host also clears notes itself, on
// the next prompt: the board cannot tell, so a note added after that shows alone until
// the next rewrite.)
//
// Updates go at a bounded pace on the injected clock (updateEvery, frameEvery): a change
// that comes too soon is sent by a timer, from the board as it is then, so the latest
// state always reaches the host. While a pinned note is shown, a changed progress note
// waits for the next update that must rewrite the notes anyway (a note taken away, the
// general note), so a large question is not sent again for every progress step.
//
// Hosts without clear_notes cannot replace a note: they get each new general note and
// pinned note once and no progress notes at all, since every update would add another
// note to the screen.
type NoteBoard struct {
	clock clock.Clock
	// session is the host session, nil until the handshake (and always in the CLI).
	session func() *extension.Session
	// notify receives what would be a note when there is no host session; nil drops it.
	notify func(level, text string)

	mu      sync.Mutex
	general *boardNote
	live    []*boardNote // progress and pinned notes, in the order they were first set
	shown   []boardNote  // what the host was sent since its last clear_notes, in order
	updates pace         // of updates
	frames  pace         // of frames
	timer   clock.Timer  // the update that waits for the pace; nil when none is due
}

type boardNote struct {
	key, level, text string
	// pinned: a question waiting for the user; never rewritten for a progress step.
	pinned bool
}

// NewNoteBoard returns the board of one bridge, paced on c: session returns the host
// session (nil before the handshake and in the CLI), notify receives the general notes
// while there is none (nil: they are dropped).
func NewNoteBoard(c clock.Clock, session func() *extension.Session, notify func(level, text string)) *NoteBoard {
	return &NoteBoard{clock: c, session: session, notify: notify,
		updates: pace{every: updateEvery, burst: updateBurst}, frames: pace{every: frameEvery, burst: frameBurst}}
}

// replaceable reports whether the host can take notes back (clear_notes).
func (n *NoteBoard) replaceable() bool {
	s := n.session()
	return s != nil && s.Host().Generation() == extension.GenNew
}

// SetGeneral shows the bridge's general note, replacing the previous one where the host
// can clear notes. Without a host session it goes to notify.
func (n *NoteBoard) SetGeneral(level, text string) {
	if n.session() == nil {
		if n.notify != nil { // the CLI prints what would be a note
			n.notify(level, text)
		}
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.general = &boardNote{key: generalKey, level: level, text: text}
	n.changedLocked()
}

// SetLive shows or replaces the live note under key; it reports false (and shows
// nothing) on hosts that cannot replace notes.
func (n *NoteBoard) SetLive(key, level, text string) bool {
	if !n.replaceable() {
		return false
	}
	n.set(key, level, text, false)
	return true
}

// set shows or replaces the live note under key.
func (n *NoteBoard) set(key, level, text string, pinned bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, l := range n.live {
		if l.key == key {
			if l.text == text && l.level == level && l.pinned == pinned {
				return
			}
			l.level, l.text, l.pinned = level, text, pinned
			n.changedLocked()
			return
		}
	}
	n.live = append(n.live, &boardNote{key: key, level: level, text: text, pinned: pinned})
	n.changedLocked()
}

// ClearLive removes the live note under key, if there is one.
func (n *NoteBoard) ClearLive(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for i, l := range n.live {
		if l.key == key {
			n.live = append(n.live[:i], n.live[i+1:]...)
			n.changedLocked()
			return
		}
	}
}

// Pin shows a note that must stay visible until Unpin (a question waiting for the
// user's answer): it is kept across the board's updates on hosts that can clear notes,
// and sent once on other hosts (which never clear it either).
func (n *NoteBoard) Pin(key, level, text string) {
	if n.session() == nil {
		return
	}
	n.set(key, level, text, true)
}

// Unpin takes a pinned note away (where the host can clear notes).
func (n *NoteBoard) Unpin(key string) { n.ClearLive(key) }

// changedLocked updates the host now, or leaves it to the timer that is due.
func (n *NoteBoard) changedLocked() {
	if n.timer == nil {
		n.updateLocked()
	}
}

// due is the paced update's timer firing.
func (n *NoteBoard) due() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.timer = nil
	n.updateLocked()
}

// updateLocked sends what makes the host show the board, when the pace allows it, and
// otherwise sets the timer that sends it (from the board as it is then).
func (n *NoteBoard) updateLocked() {
	s := n.session()
	if s == nil {
		return
	}
	replaceable := s.Host().Generation() == extension.GenNew
	want := n.wantLocked(replaceable)
	clear, send := plan(n.shown, want, replaceable)
	frames := len(send)
	if clear {
		frames++
	}
	if frames == 0 {
		if !replaceable {
			n.shown = want // forget the notes taken away: the host keeps them anyway
		}
		return // (on other hosts, shown keeps the text of any progress note that waits)
	}
	now := n.clock.Now()
	if wait := max(n.updates.wait(now, 1), n.frames.wait(now, frames)); wait > 0 {
		n.timer = n.clock.AfterFunc(wait, n.due)
		return
	}
	n.updates.spend(now, 1)
	n.frames.spend(now, frames)
	if clear {
		s.ClearNotes()
		n.shown = n.shown[:0]
	}
	for _, b := range send {
		s.Notify(b.level, b.text)
	}
	if replaceable {
		n.shown = append(n.shown, send...)
	} else {
		n.shown = want
	}
}

// wantLocked is what the host should show, in order: the general note, then the live
// notes (only the pinned ones on hosts that cannot replace notes).
func (n *NoteBoard) wantLocked(replaceable bool) []boardNote {
	want := make([]boardNote, 0, len(n.live)+1)
	if n.general != nil {
		want = append(want, *n.general)
	}
	for _, l := range n.live {
		if replaceable || l.pinned {
			want = append(want, *l)
		}
	}
	return want
}

// plan is what to send so that a host showing shown shows want: clear_notes first or not,
// then the notes to send in order. On a host that can clear notes, notes added after the
// shown ones are only sent; a note replaced or taken away rewrites them all, except that
// progress notes that only changed their text wait while a pinned note is shown. A host
// that cannot clear notes is sent each note it has not been sent in this version.
func plan(shown, want []boardNote, replaceable bool) (clear bool, send []boardNote) {
	if !replaceable {
		for _, w := range want {
			if !shownAs(shown, w) {
				send = append(send, w)
			}
		}
		return false, send
	}
	if len(shown) > len(want) {
		return true, want
	}
	stepped, pinned := false, false
	for i, w := range want {
		pinned = pinned || w.pinned
		if i >= len(shown) {
			continue
		}
		s := shown[i]
		switch {
		case s.key != w.key:
			return true, want
		case s == w:
		case w.key == generalKey || w.pinned || s.pinned:
			return true, want
		default:
			stepped = true
		}
	}
	if stepped && !pinned {
		return true, want
	}
	return false, want[len(shown):]
}

// shownAs reports whether b was sent as it is now.
func shownAs(shown []boardNote, b boardNote) bool {
	for _, s := range shown {
		if s == b {
			return true
		}
	}
	return false
}

// pace is a sustained rate with a burst on the injected clock (the generic cell rate
// algorithm): each unit costs every, and up to burst units may go at once. A request of
// more than burst units goes once the pace has fully recovered, and later ones wait until
// it is paid for.
type pace struct {
	every time.Duration
	burst int
	paid  time.Time // the time up to which the units sent so far are paid for
}

// wait is how long from now until n units may go (0: now).
func (p *pace) wait(now time.Time, n int) time.Duration {
	start := later(p.paid, now)
	allowed := time.Duration(p.burst-min(n, p.burst)) * p.every
	return max(0, start.Sub(now)-allowed)
}

// spend records n units sent at now.
func (p *pace) spend(now time.Time, n int) {
	p.paid = later(p.paid, now).Add(time.Duration(n) * p.every)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
