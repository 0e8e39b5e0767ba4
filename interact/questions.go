package interact

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// AnswerMargin ends an unanswered question this long before the call's budget, so the
// server can answer our cancel and the call still reports before the host's deadline.
const AnswerMargin = 3 * time.Second

// MaxOpenPerServer is how many of one server's questions may wait for the user at once:
// each is a note on the user's screen, and a server must not be able to fill it.
const MaxOpenPerServer = 4

// ErrTooManyQuestions is Add's refusal of a question while MaxOpenPerServer questions of
// its server wait for an answer.
var ErrTooManyQuestions = errors.New("too many questions of the server wait for an answer")

// Questions is the registry of the questions servers asked that wait for the user's
// answer (numbered for /mcp answer <n>), and of the calls they may belong to. The zero
// value is ready to use.
type Questions struct {
	mu    sync.Mutex
	next  int
	open  map[int]*Question
	calls map[string]map[*Call]bool // by server
}

// Question is a question waiting for /mcp answer|accept|decline|cancel.
type Question struct {
	Q      *Elicitation
	answer chan *mcp.ElicitationResult // buffered 1; the first answer wins
	calls  []*Call
}

// Call follows one tool call of a server while it runs, so a question asked during
// it shares its budget, and the call can say what went unanswered.
type Call struct {
	server   string
	deadline time.Time // on the injected clock
	done     <-chan struct{}

	mu      sync.Mutex
	expired []*Elicitation // questions that ran out of time during the call
}

// Add numbers and registers a question, attaching it to the server's running calls. Its
// deadline is the earliest of theirs (less the margin), or fallback without a call. While
// MaxOpenPerServer questions of the server are open it refuses the question
// (ErrTooManyQuestions).
func (r *Questions) Add(q *Elicitation, fallback time.Time) (*Question, time.Time, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	open := 0
	for _, oq := range r.open {
		if oq.Q.Server == q.Server {
			open++
		}
	}
	if open >= MaxOpenPerServer {
		return nil, time.Time{}, fmt.Errorf("%w (%d of %q are open)", ErrTooManyQuestions, open, q.Server)
	}
	r.next++
	q.N = r.next
	oq := &Question{Q: q, answer: make(chan *mcp.ElicitationResult, 1)}
	deadline := fallback
	for c := range r.calls[q.Server] {
		oq.calls = append(oq.calls, c)
	}
	sort.Slice(oq.calls, func(i, j int) bool { return oq.calls[i].deadline.Before(oq.calls[j].deadline) })
	if len(oq.calls) > 0 {
		deadline = oq.calls[0].deadline
	}
	if r.open == nil {
		r.open = map[int]*Question{}
	}
	r.open[q.N] = oq
	return oq, deadline.Add(-AnswerMargin), nil
}

// Remove forgets question n (answered, expired or abandoned).
func (r *Questions) Remove(n int) {
	r.mu.Lock()
	delete(r.open, n)
	r.mu.Unlock()
}

// Watch follows a call of server with the given budget until the returned func is
// called.
func (r *Questions) Watch(ctx context.Context, server string, deadline time.Time) (*Call, func()) {
	c := &Call{server: server, deadline: deadline, done: ctx.Done()}
	r.mu.Lock()
	if r.calls == nil {
		r.calls = map[string]map[*Call]bool{}
	}
	if r.calls[server] == nil {
		r.calls[server] = map[*Call]bool{}
	}
	r.calls[server][c] = true
	r.mu.Unlock()
	return c, func() {
		r.mu.Lock()
		delete(r.calls[server], c)
		r.mu.Unlock()
	}
}

// ExpiredText explains questions that ran out of time during the call: what was asked
// and how to answer next time; "" when there were none.
func (c *Call) ExpiredText(tool string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.expired) == 0 {
		return ""
	}
	var sb strings.Builder
	for _, q := range c.expired {
		fmt.Fprintf(&sb, "MCP server %q asked the user a question during %s and nobody answered before the call's time ran out, so the bridge cancelled it. The question (request %d): %s",
			q.Server, tool, q.N, cmp.Or(q.Message, "(no message)"))
		if q.Mode == mcp.ElicitationModeURL {
			fmt.Fprintf(&sb, " (open %s)", q.URL)
		} else if len(q.Fields) > 0 {
			sb.WriteString(" Fields: " + strings.Join(q.FieldNames(), ", ") + ".")
		}
		sb.WriteString(" Next time the user must answer the note while the call runs: /mcp answer <n> field=value …, /mcp accept <n> (defaults or open the URL), /mcp decline <n> or /mcp cancel <n>. Ask the user before calling the tool again.\n")
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// OpenList names the open questions and their servers ("none" when there are none).
func (r *Questions) OpenList() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.open) == 0 {
		return "none"
	}
	var parts []string
	for n, oq := range r.open {
		parts = append(parts, fmt.Sprintf("%d (%s)", n, oq.Q.Server))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// Get returns open question n, nil when there is none (answered, expired or never asked).
func (r *Questions) Get(n int) *Question {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open[n]
}

// Reply hands the user's answer to the waiting server; false when an answer was given
// already.
func (oq *Question) Reply(res *mcp.ElicitationResult) bool {
	select {
	case oq.answer <- res:
		return true
	default:
		return false
	}
}

// Replies delivers the answer given with Reply.
func (oq *Question) Replies() <-chan *mcp.ElicitationResult { return oq.answer }

// CallDone is closed when the call with the earliest deadline among those the question
// belongs to ends; nil when it belongs to none.
func (oq *Question) CallDone() <-chan struct{} {
	if len(oq.calls) == 0 {
		return nil
	}
	return oq.calls[0].done
}

// Expire records on each of its calls that the question ran out of time, so that the
// call reports it (Call.ExpiredText).
func (oq *Question) Expire() {
	for _, c := range oq.calls {
		c.mu.Lock()
		c.expired = append(c.expired, oq.Q)
		c.mu.Unlock()
	}
}

// Result is the answer of the given action (content: the accepted form's values).
func Result(action mcp.ElicitationResponseAction, content any) *mcp.ElicitationResult {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action, Content: content}}
}
