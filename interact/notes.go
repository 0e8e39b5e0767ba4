// Package interact is what the user is shown and asked while tool calls run: the note
// board (the bridge's note and one live note per call), per-call progress notes, and the
// typing and validation of a server's questions (elicitation forms). It knows the host
// session and MCP's message shapes, not the bridge's servers or catalog.
package interact

import (
	"sync"

	"github.com/zot-mcp/mcp-bridge/extension"
)

// NoteBoard is every note the bridge shows at one time: its general note (the last one
// SetGeneral showed) and one live note per call that reports progress. The host can only clear
// all of an extension's notes at once (clear_notes), so replacing one note means clearing
// and showing the remaining ones again; the board does that under one lock so the notes
// reach the host in a consistent order.
//
// Hosts without clear_notes cannot replace a note: they get the general notes as before
// and no progress notes at all, since every update would add another note to the screen.
type NoteBoard struct {
	// session is the host session, nil until the handshake (and always in the CLI).
	session func() *extension.Session
	// notify receives what would be a note when there is no host session; nil drops it.
	notify func(level, text string)

	mu      sync.Mutex
	general *boardNote
	live    []*boardNote // progress notes, in the order their calls first reported
}

type boardNote struct {
	key, level, text string
}

// NewNoteBoard returns the board of one bridge: session returns the host session (nil
// before the handshake and in the CLI), notify receives the general notes while there is
// none (nil: they are dropped).
func NewNoteBoard(session func() *extension.Session, notify func(level, text string)) *NoteBoard {
	return &NoteBoard{session: session, notify: notify}
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
	n.general = &boardNote{level: level, text: text}
	n.renderLocked()
}

// SetLive shows or replaces the live note under key; it reports false (and shows
// nothing) on hosts that cannot replace notes.
func (n *NoteBoard) SetLive(key, level, text string) bool {
	if !n.replaceable() {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, l := range n.live {
		if l.key == key {
			if l.text == text && l.level == level {
				return true
			}
			l.level, l.text = level, text
			n.renderLocked()
			return true
		}
	}
	n.live = append(n.live, &boardNote{key: key, level: level, text: text})
	n.renderLocked()
	return true
}

// ClearLive removes the live note under key, if there is one.
func (n *NoteBoard) ClearLive(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for i, l := range n.live {
		if l.key == key {
			n.live = append(n.live[:i], n.live[i+1:]...)
			n.renderLocked()
			return
		}
	}
}

// renderLocked replaces what the host shows by the board's notes.
func (n *NoteBoard) renderLocked() {
	s := n.session()
	if s == nil {
		return
	}
	s.ClearNotes()
	if n.general != nil {
		s.Notify(n.general.level, n.general.text)
	}
	for _, l := range n.live {
		s.Notify(l.level, l.text)
	}
}

// Pin shows a note that must stay visible until Unpin (a question waiting for the
// user's answer): it is kept across the board's re-renders on hosts that can clear notes,
// and simply sent on other hosts (which never clear it either).
func (n *NoteBoard) Pin(key, level, text string) {
	if n.SetLive(key, level, text) {
		return
	}
	if s := n.session(); s != nil {
		s.Notify(level, text)
	}
}

// Unpin takes a pinned note away (where the host can clear notes).
func (n *NoteBoard) Unpin(key string) { n.ClearLive(key) }
