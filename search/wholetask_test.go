package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestWholeTaskCoversEveryNeed: a request of two needs over a catalog where
// one server's fourteen siblings match the first need strongly, and one tool of
// another server answers the second. Ranked as one bag of words, the
// siblings take every place; read as needs, the second need's tool is on
// the page too, and each hit names the need it answers.
func TestWholeTaskCoversEveryNeed(t *testing.T) {
	var docs []Doc
	for i, what := range []string{"issues", "open issues", "closed issues", "issue comments", "issue labels", "issue events", "issue assignees", "issue milestones", "issue reactions", "issue timeline", "issue links", "issue votes", "issue pins", "issue locks"} {
		docs = append(docs, Doc{
			ID: fmt.Sprintf("mcp__tracker__list_%d", i), Server: "tracker", Tool: fmt.Sprintf("list_issue_things_%d", i),
			Description: "List the " + what + " of a repository: every issue in the tracker, issue by issue, with the issue's state.",
		})
	}
	docs = append(docs, Doc{
		ID: "mcp__chat__post_message", Server: "chat", Tool: "post_message",
		Description: "Post a message to a chat channel.",
	})
	// Unrelated tools, so that the tracker's words are rare in the catalog.
	for i, what := range []string{"weather forecast", "currency rates", "file contents", "map directions", "stock quotes", "recipe steps", "flight times", "calendar events", "image captions", "domain records"} {
		for j := range 3 {
			docs = append(docs, Doc{
				ID: fmt.Sprintf("mcp__misc%d__get_%d", i, j), Server: fmt.Sprintf("misc%d", i), Tool: fmt.Sprintf("get_%d", j),
				Description: "Get the " + what + " for a place or a date.",
			})
		}
	}
	ix := New(docs)
	q := "Go through every open issue in the tracker and list the issues that are still open for this repository. " +
		"Then post a short summary to our team channel."
	hits := ix.Search(q, DefaultLimit)
	var chat *Hit
	for i := range hits {
		if docs[hits[i].Doc].Server == "chat" {
			chat = &hits[i]
		}
	}
	if chat == nil {
		t.Fatalf("the chat tool is not in the top %d: %v", DefaultLimit, hits)
	}
	if want := "Then post a short summary to our team"; chat.Need != want {
		t.Errorf("the chat tool answers need %q, want %q", chat.Need, want)
	}
	if docs[hits[0].Doc].Server != "tracker" || hits[0].Need != "Go through every open issue in the tracker" {
		t.Errorf("first hit %s answers %q, want a tracker tool answering the first need", docs[hits[0].Doc].ID, hits[0].Need)
	}
	// A search-box request stays one need.
	for _, h := range ix.Search("post a message to the team channel", DefaultLimit) {
		if h.Need != "" {
			t.Errorf("a short request's hit names need %q", h.Need)
		}
	}
}

// TestPastedDataSkipped: a screenshot pasted as a data URL or bare base64
// changes nothing in a request's ranking.
func TestPastedDataSkipped(t *testing.T) {
	ix := New(loadCatalog(t))
	blob := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg", 40)
	for _, q := range []string{
		"Our checkout page shows an error since this morning's deploy. Find the matching errors in the error tracker, and open an issue for the on-call engineer.",
		"list open pull requests",
	} {
		want := ix.Search(q, DefaultLimit)
		for _, pasted := range []string{
			q + " data:image/png;base64," + blob,
			q + " " + blob,
		} {
			if got := ix.Search(pasted, DefaultLimit); !slices.Equal(got, want) {
				t.Errorf("%.40q with pasted data ranks %v, without %v", q, got, want)
			}
		}
	}
}
