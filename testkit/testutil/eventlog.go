package testutil

import (
	"strings"
	"sync"
)

// EventLog is an ordered list of what happened, written from several goroutines, so
// that a test can check the order of events it cannot observe directly.
type EventLog struct {
	mu     sync.Mutex
	events []string
}

// Add appends e.
func (l *EventLog) Add(e string) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

// String is the events so far, joined by commas.
func (l *EventLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.events, ",")
}

// After is the event logged right after the first e, or "" when there is none.
func (l *EventLog) After(e string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, x := range l.events {
		if x == e && i+1 < len(l.events) {
			return l.events[i+1]
		}
	}
	return ""
}
