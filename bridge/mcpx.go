package bridge

import (
	"context"
	"fmt"
	"github.com/zot-mcp/mcp-bridge/resources"
	"github.com/zot-mcp/mcp-bridge/tasks"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// mcpx is the bridge's state for MCP beyond tools/call, shared by every server: the note
// board (progress notes beside the bridge's own note), the calls waiting for progress,
// the servers' log messages, and the catalog of resources and prompts.
type mcpx struct {
	notes    *interact.NoteBoard
	progress *interact.Progress
	logs     *serverLogs
	extras   resources.Holder
	tasks    *tasks.Board
	// advertiseSampling makes the client claim the sampling capability although it
	// refuses every request: tests use it to make the everything server offer its
	// sampling tool, which it hides from clients that do not claim the capability.
	advertiseSampling bool
}

func newMCPX(b *Bridge) *mcpx {
	x := &mcpx{notes: interact.NewNoteBoard(b.opts.Clock, b.sess.Load, b.opts.Notify), logs: newServerLogs(), tasks: tasks.NewBoard(b.opts.Clock)}
	x.progress = interact.NewProgress(x.notes)
	return x
}

// samplingRefused tells the user that a server wanted sampling.
func (x *mcpx) samplingRefused(server string) {
	x.notes.SetGeneral("warn", fmt.Sprintf("MCP server %q asked zot's model to generate text (sampling); mcp-bridge does not offer that, so its request was refused and the server's operation may fail.", server))
}

// bridgeHost is the Bridge as its servers' host (lifecycle.Host).
type bridgeHost struct{ b *Bridge }

func (h bridgeHost) SessionOptions(s *lifecycle.Server) []client.ClientOption {
	var opts []client.ClientOption
	if x := h.b.x; x != nil && x.advertiseSampling {
		opts = append(opts, client.WithClientCapabilities(mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}))
	}
	return append(opts, h.b.elicitOptions(s.Config().Name)...)
}

func (h bridgeHost) Elicitor(s *lifecycle.Server) client.ElicitationHandler {
	if form, url := h.b.elicits.Modes(); !form && !url {
		return nil
	}
	return elicitHandler{b: h.b, server: s.Config().Name}
}

func (h bridgeHost) Progress(server string, p mcp.ProgressNotificationParams) {
	if h.b.x != nil {
		h.b.x.progress.Update(server, p)
	}
}

func (h bridgeHost) CallMeta(ctx context.Context) *mcp.Meta { return interact.ProgressMeta(ctx) }

func (h bridgeHost) Sampler(s *lifecycle.Server) client.SamplingHandler {
	if h.b.opts.Sampler == nil {
		return nil
	}
	return h.b.opts.Sampler(s.Config().Name)
}

func (h bridgeHost) SamplingRefused(server string) {
	if h.b.x != nil {
		h.b.x.samplingRefused(server)
	}
}

func (h bridgeHost) ServerLog(server string, line lifecycle.LogLine) {
	if h.b.x != nil {
		h.b.x.logs.add(server, line)
	}
	if f := h.b.opts.Front; f != nil {
		f.ServerLog(server, line)
	}
}

func (h bridgeHost) AddTask(t *lifecycle.Task) { h.b.x.tasks.Add(t) }

func (h bridgeHost) WaitTask(ctx context.Context, t *lifecycle.Task, expired <-chan struct{}, last *mcp.Task) (*mcp.CallToolResult, error) {
	return h.b.waitTask(ctx, t, expired, last)
}

func (h bridgeHost) ApprovalErr(s *lifecycle.Server) *lifecycle.Error { return approvalErr(s) }

// protocolWait bounds the write that remembers a server's MCP revision.
const protocolWait = 5 * time.Second

// ProtocolLearned remembers in the server's cache entry the revision it spoke, under the
// key of what decides it, so that the next process speaks it first; in the background,
// which Close waits for.
func (h bridgeHost) ProtocolLearned(s *lifecycle.Server, protocol string) {
	b := h.b
	if b.opts.CachePath == "" {
		return
	}
	if b.bgCtx.Err() != nil {
		// Closing: nothing is written into ZOT_HOME after Close (the next wake probes
		// again).
		return
	}
	name, key, project := s.Name(), s.Config().ProtocolKey(), b.projectKey
	b.background(func() {
		// Not cancelled by Close: it is short, and what it saves is what the next
		// process needs first.
		ctx, cancel := clock.WithTimeout(context.WithoutCancel(b.bgCtx), b.opts.Clock, protocolWait)
		defer cancel()
		if err := cache.SetProtocol(ctx, b.opts.CachePath, project, name, protocol, key); err != nil {
			b.opts.Log.Warn().Str("server", name).Err(err).Msg("could not remember the server's MCP revision in the tool cache")
		}
	})
}
