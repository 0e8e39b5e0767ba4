package bridge

import (
	"sync"

	"github.com/zot-mcp/mcp-bridge/extension"
)

// noteBoard is every note the bridge shows at one time: its general note (the last one
// b.note sent) and one live note per call that reports progress. The host can only clear
// all of an extension's notes at once (clear_notes), so replacing one note means clearing
// and showing the remaining ones again; the board does that under one lock so the notes
// reach the host in a consistent order.
//
// Hosts without clear_notes cannot replace a note: they get the general notes as before
// and no progress notes at all, since every update would add another note to the screen.
type noteBoard struct {
	b *Bridge

	mu      sync.Mutex
	general *boardNote
	live    []*boardNote // progress notes, in the order their calls first reported
}

type boardNote struct {
	key, level, text string
}

func newNoteBoard(b *Bridge) *noteBoard { return &noteBoard{b: b} }

func (n *noteBoard) session() *extension.Session { return n.b.sess.Load() }

// replaceable reports whether the host can take notes back (clear_notes).
func (n *noteBoard) replaceable() bool {
	s := n.session()
	return s != nil && s.Host().Generation() == extension.GenNew
}

// setGeneral shows the bridge's general note, replacing the previous one where the host
// can clear notes. Without a host session it goes to Options.Notify.
func (n *noteBoard) setGeneral(level, text string) {
	if n.session() == nil {
		if n.b.opts.Notify != nil { // the CLI prints what would be a note
			n.b.opts.Notify(level, text)
		}
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.general = &boardNote{level: level, text: text}
	n.renderLocked()
}

// setLive shows or replaces the live note under key; it reports false (and shows
// nothing) on hosts that cannot replace notes.
func (n *noteBoard) setLive(key, level, text string) bool {
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

// clearLive removes the live note under key, if there is one.
func (n *noteBoard) clearLive(key string) {
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
func (n *noteBoard) renderLocked() {
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

// pin shows a note that must stay visible until unpin (a question waiting for the
// user's answer): it is kept across the board's re-renders on hosts that can clear notes,
// and simply sent on other hosts (which never clear it either).
func (n *noteBoard) pin(key, level, text string) {
	if n.setLive(key, level, text) {
		return
	}
	if s := n.session(); s != nil {
		s.Notify(level, text)
	}
}

// unpin takes a pinned note away (where the host can clear notes).
func (n *noteBoard) unpin(key string) { n.clearLive(key) }
