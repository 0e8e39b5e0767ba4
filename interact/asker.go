package interact

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/repeats"
)

// Elicitor answers servers' questions where there is no zot host to ask (the CLI). The
// bridge has already validated a url-mode URL; form answers should be built with
// Elicitation.Answer, which validates them.
type Elicitor interface {
	// Modes says which elicitation modes it handles; exactly these are advertised.
	Modes() (form, url bool)
	Elicit(ctx context.Context, q *Elicitation) (*mcp.ElicitationResult, error)
}

// Asker is where servers' questions go: in zot, the registry of open questions the user
// answers with /mcp answer|accept|decline|cancel (Questions); elsewhere the Elicitor set
// with SetElicitor. The zero value asks through the zot host.
type Asker struct {
	Questions

	mu     sync.Mutex
	elicit Elicitor // nil: ask through the zot host
	// declined collapses the log lines and notes of questions declined without asking,
	// which a server can repeat at will; made on first use, on the bridge's clock.
	declined *repeats.Collapser[declineKey]
}

// declineWindow is how long the repeats of one declined question are only counted.
const declineWindow = time.Minute

// declineKey is one server's one reason to decline questions without asking the user.
type declineKey struct {
	server string
	full   bool // too many of its questions are open; otherwise one the bridge cannot show
}

// firstDecline reports whether a question declined for key is the first in its window
// (the caller logs it and tells the user); the others are counted and logged at once
// when the window ends.
func (a *Asker) firstDecline(env AskEnv, key declineKey) bool {
	a.mu.Lock()
	if a.declined == nil {
		log := env.Log
		a.declined = repeats.New(env.Clock, declineWindow, func(k declineKey, n int) {
			why := "questions the bridge cannot show"
			if k.full {
				why = "questions while too many of its questions waited for an answer"
			}
			log.Warn().Str("server", k.server).Int("declined", n).Dur("within", declineWindow).
				Msgf("the server asked %d more %s; they were declined", n, why)
		})
	}
	c := a.declined
	a.mu.Unlock()
	return c.First(key)
}

// SetElicitor makes e answer servers' questions instead of the zot host (the CLI). Call it
// before the first server starts: a connection advertises the modes of its time.
func (a *Asker) SetElicitor(e Elicitor) {
	a.mu.Lock()
	a.elicit = e
	a.mu.Unlock()
}

func (a *Asker) elicitor() Elicitor {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.elicit
}

// Modes is what is advertised: both modes in zot (a note, then /mcp accept opens the
// URL), otherwise what the Elicitor handles.
func (a *Asker) Modes() (form, url bool) {
	if e := a.elicitor(); e != nil {
		return e.Modes()
	}
	return true, true
}

// ClientOptions are the mcp-go client options that install h as the elicitation handler
// and advertise exactly the modes handled (none: no options).
func (a *Asker) ClientOptions(h client.ElicitationHandler) []client.ClientOption {
	form, url := a.Modes()
	if !form && !url {
		return nil
	}
	caps := &mcp.ElicitationCapability{}
	if form {
		caps.Form = &struct{}{}
	}
	if url {
		caps.URL = &struct{}{}
	}
	return []client.ClientOption{
		client.WithElicitationHandler(h),
		// Only the elicitation member is set, so capabilities configured elsewhere stay.
		func(c *client.Client) {
			cc := c.GetClientCapabilities()
			cc.Elicitation = caps
			client.WithClientCapabilities(cc)(c)
		},
	}
}

// AskEnv is what asking needs from the bridge when a question comes.
type AskEnv struct {
	Clock clock.Clock
	// Budget is a call's budget: an unanswered question ends before the calls it belongs
	// to do (Questions.Add).
	Budget time.Duration
	Log    zerolog.Logger
	// Notes pins the question where the user reads it.
	Notes *NoteBoard
	// Note sets the bridge's general note (a refused or expired question).
	Note func(level, msg string)
	// Hosted: a zot host session is attached to answer through.
	Hosted bool
	// CheckURL refuses a url-mode URL the bridge will not show.
	CheckURL func(string) error
}

// Ask answers one elicitation/create of server: through the Elicitor when one is set,
// otherwise with a note in zot and the user's /mcp answer, within the budget of the calls
// the server is serving.
func (a *Asker) Ask(ctx context.Context, env AskEnv, server string, p mcp.ElicitationParams) (*mcp.ElicitationResult, error) {
	q, err := NewElicitation(server, p, env.CheckURL)
	if err != nil {
		if a.firstDecline(env, declineKey{server: server}) {
			env.Log.Warn().Str("server", server).Err(err).Msg("elicitation request refused")
			env.Note("warn", fmt.Sprintf("MCP server %q asked a question the bridge cannot show (%v); it was declined.", server, err))
		}
		return Result(mcp.ElicitationResponseActionDecline, nil), nil
	}
	if e := a.elicitor(); e != nil {
		return e.Elicit(ctx, q)
	}
	if !env.Hosted {
		return Result(mcp.ElicitationResponseActionDecline, nil), nil
	}
	oq, deadline, err := a.Add(q, env.Clock.Now().Add(env.Budget))
	if err != nil {
		if a.firstDecline(env, declineKey{server: server, full: true}) {
			env.Log.Warn().Str("server", server).Err(err).Msg("elicitation request declined")
			env.Note("warn", fmt.Sprintf("MCP server %q asked another question while %d of its questions wait for your answer, so the bridge declined it. Answer or dismiss the open ones (/mcp answer|decline|cancel <n>) before it asks again.", server, MaxOpenPerServer))
		}
		return Result(mcp.ElicitationResponseActionDecline, nil), nil
	}
	defer a.Remove(q.N)
	// The timer exists before the note: whoever reads the note may already advance time.
	expired := make(chan struct{})
	t := env.Clock.AfterFunc(deadline.Sub(env.Clock.Now()), func() { close(expired) })
	defer t.Stop()
	env.Log.Info().Str("server", server).Int("request", q.N).Str("mode", q.Mode).Msg("elicitation request shown to the user")
	key := "elicit:" + strconv.Itoa(q.N)
	env.Notes.Pin(key, "warn", q.NoteText())
	defer env.Notes.Unpin(key)
	select {
	case res := <-oq.Replies():
		return res, nil
	case <-expired:
		oq.Expire()
		env.Note("warn", fmt.Sprintf("MCP request %d from %q expired: no answer within the call's time. The call was told you cancelled.", q.N, server))
		return Result(mcp.ElicitationResponseActionCancel, nil), nil
	case <-oq.CallDone():
		return Result(mcp.ElicitationResponseActionCancel, nil), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
