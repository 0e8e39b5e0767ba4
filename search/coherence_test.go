package search

import (
	"slices"
	"testing"
)

// coherenceFixture is a small catalog in which tools of different servers
// match a request's main word alike, and the other words of the request are
// spread over the tools of one of those servers.
func coherenceFixture() []Doc {
	return []Doc{
		mk("weather", "get_report", "Get the latest report."),
		mk("weather", "rain_radar", "Show the rain radar for a region."),
		mk("weather", "wind_forecast", "Forecast wind speed and gusts."),
		mk("sales", "get_report", "Get the latest report."),
		mk("sales", "quarter_revenue", "Revenue figures of a quarter."),
		mk("sales", "top_customers", "The customers who spent the most."),
		mk("chat", "send", "Send text to a conversation."),
		mk("chat", "list_channels", "List the channels of the workspace."),
		mk("chat", "channel_history", "Read the recent messages of a channel."),
		mk("mail", "send", "Send text to a conversation."),
		mk("mail", "list_folders", "List the mail folders."),
		mk("mail", "inbox_messages", "Read the messages in the inbox."),
	}
}

func TestServerCoherenceRanking(t *testing.T) {
	t.Parallel()
	docs := coherenceFixture()
	ix := New(docs)
	tests := []struct {
		query         string
		before, after string // tools matching the query alike; the one whose server explains the rest comes first
	}{
		{"get the rain report", "mcp__weather__get_report", "mcp__sales__get_report"},
		{"get the report on wind gusts", "mcp__weather__get_report", "mcp__sales__get_report"},
		{"get the revenue report", "mcp__sales__get_report", "mcp__weather__get_report"},
		{"send text to the team channel", "mcp__chat__send", "mcp__mail__send"},
		{"send text to my inbox", "mcp__mail__send", "mcp__chat__send"},
	}
	// The pairs are asked both ways round, so neither the ID order of ties
	// nor anything but the server's other tools passes them all.
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits := ids(docs, ix.Search(tt.query, 10))
			b, a := slices.Index(hits, tt.before), slices.Index(hits, tt.after)
			if b < 0 || a < 0 || b > a {
				t.Errorf("Search(%q) = %v, want %s before %s", tt.query, hits, tt.before, tt.after)
			}
		})
	}
}

func TestServerCoherenceScores(t *testing.T) {
	t.Parallel()
	var docs []Doc
	add := func(server string, n int) (first int32) {
		first = int32(len(docs))
		for i := range n {
			docs = append(docs, mk(server, "tool"+itoa(i+1), "A tool."))
		}
		return first
	}
	big, small, both, idle := add("big", 8), add("small", 2), add("both", 2), add("idle", 2)
	ix := New(docs)
	sid := func(d int32) int32 { return ix.docs[d].server }

	words := make([]uint64, len(docs))
	// One query word (bit 0) matched by one tool of big and of small; both
	// matches it and a second word (bit 1) with different tools.
	words[big], words[small], words[both], words[both+1] = 1, 1, 1, 2
	var ss serverScratch
	got := ix.serverCoherence(&ss, []int32{big, small, both, both + 1}, words)
	tests := []struct {
		name          string
		higher, lower int32
	}{
		{"covering more of the query ranks higher", both, small},
		{"the same match in a larger server counts less", small, big},
		{"a server with a match ranks above one without", big, idle},
	}
	for _, tt := range tests {
		if got[sid(tt.higher)] <= got[sid(tt.lower)] {
			t.Errorf("%s: coherence %v of %s ≤ %v of %s", tt.name,
				got[sid(tt.higher)], docs[tt.higher].Server, got[sid(tt.lower)], docs[tt.lower].Server)
		}
	}
	if c := got[sid(both)]; c <= 0 || c > 1 {
		t.Errorf("coherence of a server covering every query word = %v, want in (0, 1]", c)
	}
	if got[sid(idle)] != 0 {
		t.Errorf("coherence of a server without a match = %v, want 0", got[sid(idle)])
	}

	// The scratch is reused: a second query sees nothing of the first.
	words2 := make([]uint64, len(docs))
	words2[idle] = 1
	got = ix.serverCoherence(&ss, []int32{idle}, words2)
	for _, d := range []int32{big, small, both} {
		if got[sid(d)] != 0 {
			t.Errorf("second query: coherence of %s = %v, want 0 (left from the first query)", docs[d].Server, got[sid(d)])
		}
	}
	if got[sid(idle)] <= 0 {
		t.Errorf("second query: coherence of idle = %v, want > 0", got[sid(idle)])
	}
	for i, tf := range ss.tf {
		if slices.ContainsFunc(tf, func(n int32) bool { return n != 0 }) {
			t.Errorf("per-server counts of word %d not cleared after a query: %v", i, tf)
		}
	}
}
