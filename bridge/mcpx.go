package bridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/extras"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/session"
)

// mcpx is the bridge's state for MCP beyond tools/call, shared by every server: the note
// board (progress notes beside the bridge's own note), the calls waiting for progress,
// the servers' log messages, and the catalog of resources and prompts.
type mcpx struct {
	notes    *interact.NoteBoard
	progress *interact.Progress
	logs     *serverLogs
	extras   extrasHolder
	tasks    *taskBoard
	// advertiseSampling makes the client claim the sampling capability although it
	// refuses every request: tests use it to make the everything server offer its
	// sampling tool, which it hides from clients that do not claim the capability.
	advertiseSampling bool
}

func newMCPX(b *Bridge) *mcpx {
	x := &mcpx{notes: interact.NewNoteBoard(b.sess.Load, b.opts.Notify), logs: newServerLogs(), tasks: newTaskBoard()}
	x.progress = interact.NewProgress(x.notes)
	return x
}

// handlers is what every session of the server is opened with: initialize with our
// version, roots answered with the project directory, sampling refused with a note (and
// not advertised), server-to-client requests seen through guardRequests, and the
// server's notifications routed by onNotification.
func (s *Server) handlers() session.Handlers {
	return session.Handlers{Init: lifecycle.InitRequest(s.d.version), Options: s.clientOptions(),
		Wrap: s.guardRequests, OnNotification: s.onNotification}
}

// guardRequests refuses the server's sampling requests (lifecycle.GuardSampling).
func (s *Server) guardRequests(tr transport.Interface) transport.Interface {
	return lifecycle.GuardSampling(tr, s.cfg.Name, s.samplingRefused)
}

// samplingRefused logs that the server asked for sampling and tells the user.
func (s *Server) samplingRefused() {
	s.d.log.Warn().Str("server", s.cfg.Name).Msg("server asked for sampling, which the bridge does not offer; refused")
	if s.d.host != nil {
		s.d.host.samplingRefused(s.cfg.Name)
	}
}

// samplingRefused tells the user that a server wanted sampling.
func (x *mcpx) samplingRefused(server string) {
	x.notes.SetGeneral("warn", fmt.Sprintf("MCP server %q asked zot's model to generate text (sampling); mcp-bridge does not offer that, so its request was refused and the server's operation may fail.", server))
}

// rootDirs are the roots offered to this server (lifecycle.RootDirs).
func (s *Server) rootDirs() []string {
	return lifecycle.RootDirs(s.d.projectDir, s.workDir(), s.cfg.Args)
}

// clientOptions are the capabilities and handlers of every connection.
func (s *Server) clientOptions() []client.ClientOption {
	opts := []client.ClientOption{client.WithRootsHandler(lifecycle.RootsHandler{Dirs: s.rootDirs()})}
	if s.d.host != nil {
		opts = append(opts, s.d.host.sessionOptions(s)...)
	}
	return opts
}

// onNotification routes a session's notifications: progress to the call's note, log
// messages to our log, and list changes of tools, resources and prompts to a re-list.
func (s *Server) onNotification(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationProgress):
		if s.d.host != nil {
			var p mcp.ProgressNotificationParams
			if decodeParams(n.Params, &p) == nil {
				s.d.host.progress(s.cfg.Name, p)
			}
		}
	case string(mcp.MethodNotificationMessage):
		var p mcp.LoggingMessageNotificationParams
		if decodeParams(n.Params, &p) == nil {
			s.serverLog(p)
		}
	case string(mcp.MethodNotificationToolsListChanged), string(mcp.MethodNotificationResourcesListChanged), string(mcp.MethodNotificationPromptsListChanged):
		if s.d.onListChanged != nil {
			go s.d.onListChanged(s.cfg.Name)
		}
	}
}

// decodeParams reads a notification's parameters into v (mcp-go hands them over as a
// generic map).
func decodeParams(p mcp.NotificationParams, v any) error {
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// bridgeHost is the Bridge as its servers' host (serverHost).
type bridgeHost struct{ b *Bridge }

func (h bridgeHost) sessionOptions(s *Server) []client.ClientOption {
	var opts []client.ClientOption
	if x := h.b.x; x != nil && x.advertiseSampling {
		opts = append(opts, client.WithClientCapabilities(mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}))
	}
	return append(opts, h.b.elicitOptions(s.cfg.Name)...)
}

func (h bridgeHost) progress(server string, p mcp.ProgressNotificationParams) {
	if h.b.x != nil {
		h.b.x.progress.Update(server, p)
	}
}

func (h bridgeHost) samplingRefused(server string) {
	if h.b.x != nil {
		h.b.x.samplingRefused(server)
	}
}

func (h bridgeHost) serverLog(server string, line logLine) {
	if h.b.x != nil {
		h.b.x.logs.add(server, line)
	}
}

func (h bridgeHost) addTask(t *extras.Task) { h.b.x.tasks.Add(t) }

func (h bridgeHost) waitTask(ctx context.Context, t *extras.Task, expired <-chan struct{}, last *mcp.Task) (*mcp.CallToolResult, error) {
	return h.b.x.waitTask(ctx, t, expired, last)
}
