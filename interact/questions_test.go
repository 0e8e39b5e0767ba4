package interact

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestQuestionsShareTheCallsBudget: a question asked while calls of its server run ends
// AnswerMargin before the earliest of their deadlines (the fallback without a call), is
// listed while open, and a call reports the questions that expired during it.
func TestQuestionsShareTheCallsBudget(t *testing.T) {
	var r Questions
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ask := func(server string) *Elicitation {
		q, err := NewElicitation(server, mcp.ElicitationParams{Message: "Token?", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"token": map[string]any{"type": "string"}}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	if _, d, _ := r.Add(ask("idle"), t0.Add(time.Minute)); !d.Equal(t0.Add(time.Minute - AnswerMargin)) {
		t.Errorf("without a call: deadline %v", d)
	}
	late, unwatchLate := r.Watch(context.Background(), "gh", t0.Add(50*time.Second))
	defer unwatchLate()
	early, unwatchEarly := r.Watch(context.Background(), "gh", t0.Add(20*time.Second))
	oq, d, _ := r.Add(ask("gh"), t0.Add(time.Hour))
	unwatchEarly()
	if !d.Equal(t0.Add(20*time.Second - AnswerMargin)) {
		t.Errorf("deadline %v, want the earliest call's less the margin", d)
	}
	if got := r.OpenList(); got != "1 (idle), 2 (gh)" {
		t.Errorf("open list %q", got)
	}
	oq.Expire()
	r.Remove(oq.Q.N)
	if r.Get(2) != nil || r.OpenList() != "1 (idle)" {
		t.Errorf("question 2 still open: %q", r.OpenList())
	}
	for _, c := range []*Call{early, late} {
		if txt := c.ExpiredText("create_issue"); !strings.Contains(txt, `MCP server "gh" asked the user a question during create_issue`) || !strings.Contains(txt, "Fields: token.") {
			t.Errorf("expired text %q", txt)
		}
	}
	other, unwatch := r.Watch(context.Background(), "gh", t0.Add(time.Minute))
	defer unwatch()
	if txt := other.ExpiredText("x"); txt != "" {
		t.Errorf("a later call reports %q", txt)
	}
}
