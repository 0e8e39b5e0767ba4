package interact

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"
)

type fixedElicitor struct {
	form, url bool
	asked     int
}

func (f *fixedElicitor) Modes() (form, url bool) { return f.form, f.url }

func (f *fixedElicitor) Elicit(context.Context, *Elicitation) (*mcp.ElicitationResult, error) {
	f.asked++
	return Result(mcp.ElicitationResponseActionAccept, nil), nil
}

func TestAskerModes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		elicitor  *fixedElicitor
		form, url bool
		options   int
	}{
		{"zot host", nil, true, true, 2},
		{"form only", &fixedElicitor{form: true}, true, false, 2},
		{"neither", &fixedElicitor{}, false, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var a Asker
			if tt.elicitor != nil {
				a.SetElicitor(tt.elicitor)
			}
			if form, url := a.Modes(); form != tt.form || url != tt.url {
				t.Errorf("Modes() = %v, %v; want %v, %v", form, url, tt.form, tt.url)
			}
			if n := len(a.ClientOptions(nil)); n != tt.options {
				t.Errorf("ClientOptions: %d options, want %d", n, tt.options)
			}
		})
	}
}

// TestAskerWithoutHost: a question with neither an Elicitor nor a zot host is declined, and
// one with an Elicitor goes to it, without touching the board.
func TestAskerWithoutHost(t *testing.T) {
	t.Parallel()
	p := mcp.ElicitationParams{Message: "name?", RequestedSchema: map[string]any{"type": "object",
		"properties": map[string]any{"name": map[string]any{"type": "string"}}}}
	env := AskEnv{Log: zerolog.Nop(), Note: func(string, string) { t.Error("no note expected") }}
	var a Asker
	r, err := a.Ask(context.Background(), env, "s", p)
	if err != nil || r.Action != mcp.ElicitationResponseActionDecline {
		t.Fatalf("without host: %+v, %v; want decline", r, err)
	}
	e := &fixedElicitor{form: true}
	a.SetElicitor(e)
	r, err = a.Ask(context.Background(), env, "s", p)
	if err != nil || r.Action != mcp.ElicitationResponseActionAccept || e.asked != 1 {
		t.Fatalf("with elicitor: %+v, %v, asked %d; want accept once", r, err, e.asked)
	}
}
