package lifecycle

import (
	"encoding/json"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/repeats"
	"github.com/zot-mcp/mcp-bridge/session"
)

// handlers is what every session of the server is opened with: initialize with our
// version, roots answered with the project directory, sampling through the host's
// sampler (advertised) or else refused with a note (and not advertised: the session
// refuses the server's own requests, telling samplingRefused), the server's notifications routed by
// onNotification, and the listed tools' definitions for the headers a call mirrors from
// its arguments (toolDef).
func (s *Server) handlers() session.Handlers {
	return session.Handlers{Init: InitRequest(s.d.Version), Options: s.clientOptions(),
		OnNotification: s.onNotification, Tool: s.toolDef, Input: s.inputs(), Era: s.eraOf()}
}

// toolDef is the definition of tool in the server's last listing: every wake lists the
// tools, so it is the definition the running server gave.
func (s *Server) toolDef(name string) (mcp.Tool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tools {
		if t.Name == name {
			return t, true
		}
	}
	return mcp.Tool{}, false
}

// inputs answers what a 2026-07-28 server asks for in a result or a task exactly as the
// legacy requests are answered: the host's questions, the same roots, sampling through
// the host's sampler or refused.
func (s *Server) inputs() session.Inputs {
	in := session.Inputs{Server: s.cfg.Name, Roots: RootsHandler{Dirs: s.rootDirs()}, SamplingRefused: s.samplingRefused}
	if s.d.Host != nil {
		in.Elicit = s.d.Host.Elicitor(s)
		in.Sample = s.d.Host.Sampler(s)
	}
	return in
}

// eraOf is what decides the revision of the next connection: the config's pin and the
// revision the server spoke last.
func (s *Server) eraOf() session.Era {
	s.mu.Lock()
	known := s.protocol
	s.mu.Unlock()
	return session.Era{Pin: s.cfg.ProtocolVersion, Known: known, Clock: s.d.Clock, ListenEnded: s.listenEnded}
}

// listenEnded logs a modern connection's notification stream that ended (session
// reopens it).
func (s *Server) listenEnded(err error) {
	s.d.Log.Info().Str("server", s.cfg.Name).Err(err).Msg("subscriptions/listen stream ended; list changes are followed again once it reopens")
}

// refusalWindow is how long the repeats of a refused request are only counted.
const refusalWindow = time.Minute

// samplingRefused logs that the server asked for sampling and tells the user, once per
// refusalWindow: a server can ask in a loop, and every other request in the window is
// counted, to be logged as one line when it ends.
func (s *Server) samplingRefused() {
	s.logMu.Lock()
	if s.refusals == nil {
		log, name := s.d.Log, s.cfg.Name
		s.refusals = repeats.New(s.d.Clock, refusalWindow, func(_ string, n int) {
			log.Warn().Str("server", name).Int("refused", n).Dur("within", refusalWindow).
				Msgf("server asked for sampling %d more times; refused every time", n)
		})
	}
	r := s.refusals
	s.logMu.Unlock()
	if !r.First(string(mcp.MethodSamplingCreateMessage)) {
		return
	}
	s.d.Log.Warn().Str("server", s.cfg.Name).Msg("server asked for sampling, which the bridge does not offer; refused")
	if s.d.Host != nil {
		s.d.Host.SamplingRefused(s.cfg.Name)
	}
}

// rootDirs are the roots offered to this server (RootDirs).
func (s *Server) rootDirs() []string {
	return RootDirs(s.d.ProjectDir, s.workDir(), s.cfg.Args)
}

// clientOptions are the capabilities and handlers of every connection.
func (s *Server) clientOptions() []client.ClientOption {
	opts := []client.ClientOption{client.WithRootsHandler(RootsHandler{Dirs: s.rootDirs()})}
	if s.d.Host != nil {
		opts = append(opts, s.d.Host.SessionOptions(s)...)
	}
	return append(opts, declareRoots)
}

// declareRoots declares the roots capability that the roots handler implies, as mcp-go
// would on its own: with every capability declared, the configured set is the one
// mcp-go sends, and the requests the bridge sends around mcp-go carry the same one in
// their _meta (session.Client.send). Last, since a host's option may replace the set.
func declareRoots(c *client.Client) {
	cc := c.GetClientCapabilities()
	if cc.Roots == nil {
		cc.Roots = &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{ListChanged: true}
	}
	client.WithClientCapabilities(cc)(c)
}

// onNotification routes a session's notifications: progress to the call's note, log
// messages to our log, and list changes of tools, resources and prompts to a re-list.
func (s *Server) onNotification(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationProgress):
		if s.d.Host != nil {
			var p mcp.ProgressNotificationParams
			if decodeParams(n.Params, &p) == nil {
				s.d.Host.Progress(s.cfg.Name, p)
			}
		}
	case string(mcp.MethodNotificationMessage):
		var p mcp.LoggingMessageNotificationParams
		if decodeParams(n.Params, &p) == nil {
			s.serverLog(p)
		}
	case string(mcp.MethodNotificationToolsListChanged), string(mcp.MethodNotificationResourcesListChanged), string(mcp.MethodNotificationPromptsListChanged):
		if s.d.OnListChanged != nil {
			go s.d.OnListChanged(s.cfg.Name)
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
