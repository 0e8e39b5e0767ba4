package search

import (
	"testing"

	"github.com/zot-mcp/mcp-bridge/search/words"
)

// denominalDocs is a tracker whose get_issue mentions comments, so that a
// request using "comment" as its verb finds it as readily as create_comment.
func denominalDocs() []Doc {
	return []Doc{
		{ID: "t__get_issue", Server: "tracker", Tool: "get_issue", Description: "Get an issue by its number."},
		{ID: "t__list_issues", Server: "tracker", Tool: "list_issues", Description: "List the issues of a project."},
		{ID: "t__update_issue", Server: "tracker", Tool: "update_issue", Description: "Update the fields of an issue."},
		{ID: "t__create_comment", Server: "tracker", Tool: "create_comment", Description: "Post a new comment."},
		{ID: "t__get_comment", Server: "tracker", Tool: "get_comment", Description: "Get one comment by its id."},
		{ID: "t__take_screenshot", Server: "browser", Tool: "take_screenshot", Description: "Take a screenshot of the page."},
		{ID: "t__get_screenshot", Server: "browser", Tool: "get_screenshot", Description: "Get a stored screenshot."},
		{ID: "t__send_message", Server: "chat", Tool: "send_message", Description: "Send a message to a channel."},
		{ID: "t__list_messages", Server: "chat", Tool: "list_messages", Description: "List the messages of a channel."},
	}
}

func TestDenominalClass(t *testing.T) {
	ix := New(denominalDocs())
	tests := []struct {
		term string
		want uint16
	}{
		{"comment", words.VCreate}, // create_comment; get_comment reads, which a noun used as a verb never means
		{"message", words.VSend},   // send_message
		{"screenshot", 0},          // take_screenshot: take is no verb of making
		{"issue", 0},               // only get_issue
		{"create", 0},              // the verb itself, never its own object
		{"nonesuch", 0},
	}
	for _, tt := range tests {
		if got := ix.denominalClass(tt.term); got != tt.want {
			t.Errorf("denominalClass(%q) = %b, want %b", tt.term, got, tt.want)
		}
	}
}

func TestDenominalRanking(t *testing.T) {
	docs := denominalDocs()
	ix := New(docs)
	tests := []struct{ q, want string }{
		// Without the noun read as a verb, create_comment and get_comment
		// tie and get_comment's sibling reading is as likely.
		{"comment on the issue", "t__create_comment"},
		{"please message the channel", "t__send_message"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.q, 3)
		got := ids(docs, hits)
		if len(hits) < 2 || got[0] != tt.want || hits[0].Score <= hits[1].Score {
			t.Errorf("Search(%q) = %v, want %s first and alone", tt.q, got, tt.want)
		}
	}
}
