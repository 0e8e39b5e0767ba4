package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/redact"
	"github.com/zot-mcp/mcp-bridge/remote"
	"github.com/zot-mcp/mcp-bridge/session"
)

// commandBudget keeps command answers well inside the host's 30 s command deadline; work
// that may take longer continues in the background and reports with notes.
const commandBudget = 20 * time.Second

// RunCommand serves /mcp (package commands does the work).
func (b *Bridge) RunCommand(ctx context.Context, cmd extension.Command) extension.CommandResponse {
	return commands.Run(ctx, cmdHost{b}, cmd)
}

// Command runs one /mcp command line and returns its text.
func (b *Bridge) Command(ctx context.Context, line string) (string, error) {
	return commands.Line(ctx, cmdHost{b}, line)
}

// CommandArgs runs one /mcp command given as separate arguments, so that the CLI can pass
// a value with spaces (a quoted --name) through intact.
func (b *Bridge) CommandArgs(ctx context.Context, args []string) (string, error) {
	return commands.Args(ctx, cmdHost{b}, args)
}

// cmdHost is the bridge as the /mcp commands see it (commands.Host).
type cmdHost struct{ b *Bridge }

func (h cmdHost) Surface() commands.Surface { return h.b.opts.Surface }
func (h cmdHost) Names() []string           { return h.b.names }
func (h cmdHost) Config() *config.Config    { return h.b.cfg }
func (h cmdHost) ZotHome() string           { return h.b.opts.ZotHome }
func (h cmdHost) CachePath() string         { return h.b.opts.CachePath }
func (h cmdHost) ProjectDir() string        { return h.b.projectDir }
func (h cmdHost) Note(level, text string)   { h.b.note(level, text) }

func (h cmdHost) Server(name string) (commands.Server, bool) {
	s, ok := h.b.servers[name]
	if !ok {
		return nil, false
	}
	return cmdServer{s: s, r: h.b.remotes[name]}, true
}

func (h cmdHost) LookupEnv(name string) (string, bool) { return h.b.opts.LookupEnv(name) }

func (h cmdHost) Mode() (string, bool) { return string(h.b.mode), h.b.mode == ModeDeferred }

func (h cmdHost) CachedTools() map[string]int {
	_, counts := h.b.catalog().Servers()
	return counts
}

func (h cmdHost) MoreDetail(name string) string {
	return h.b.toolNotesText(name) + h.b.tasksText(name) + h.b.serverLogText(name)
}

func (h cmdHost) Refresh(ctx context.Context, names []string) commands.RefreshSummary {
	rep := h.b.RefreshEach(ctx, names, nil)
	if rep.Flagged != "" {
		h.b.note("warn", rep.Flagged)
	}
	return commands.RefreshSummary{Listed: rep.Listed, Changed: rep.Changed, Failed: rep.Failed, SaveErr: rep.SaveText(), ToolChanges: rep.ToolChanges}
}

func (h cmdHost) ToolChanges(name string) *commands.ToolChange { return h.b.toolChangeDetail(name) }

func (h cmdHost) Background(f func(ctx context.Context)) {
	h.b.background(func() { f(h.b.bgCtx) })
}

func (h cmdHost) CommandWait() (<-chan struct{}, func()) {
	waited, t := clock.After(h.b.opts.Clock, commandBudget)
	return waited, func() { t.Stop() }
}

func (h cmdHost) BackgroundContext() context.Context { return h.b.bgCtx }

func (h cmdHost) CommandContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return clock.WithTimeout(ctx, h.b.opts.Clock, commandBudget)
}

func (h cmdHost) OAuth() *remote.OAuth {
	if h.b.deps == nil {
		return nil
	}
	return h.b.remote.OAuth
}

// WaitLogin waits until the latest login of the named server has ended (the CLI's
// `login` runs the flow in the foreground) and returns why it failed, or nil when the
// credentials were saved. Its messages have already gone out as notes.
func (b *Bridge) WaitLogin(ctx context.Context, name string) error {
	return commands.WaitLogin(ctx, cmdHost{b}, name)
}

func (h cmdHost) Approve(ctx context.Context, names []string) ([]string, error) {
	return h.b.approve(ctx, names)
}

func (h cmdHost) Revoke(ctx context.Context, names, which []string) ([]string, error) {
	return h.b.revoke(ctx, names, which)
}

func (h cmdHost) InZot() bool              { return h.b.sess.Load() != nil }
func (h cmdHost) ListLater(names []string) { h.b.listLater(names) }

func (h cmdHost) Questions() *interact.Questions { return &h.b.elicits.Questions }

func (h cmdHost) OpenURL(ctx context.Context, url string) error {
	return h.b.remote.OAuth.OpenURL(ctx, url)
}

func (h cmdHost) Prompts(server string) []cache.Prompt {
	if e := h.b.extras().Servers[server]; e != nil {
		return e.Prompts
	}
	return nil
}

func (h cmdHost) GetPrompt(ctx context.Context, server, name string, args map[string]string) (string, error) {
	return h.b.getPromptText(ctx, server, name, args)
}

// cmdServer is one server as the /mcp commands see it (commands.Server).
type cmdServer struct {
	s *lifecycle.Server
	r *remote.Server
}

func (c cmdServer) Config() *config.Server    { return c.s.Config() }
func (c cmdServer) Pending() bool             { return c.s.Pending() }
func (c cmdServer) NeedsApproval() bool       { return c.s.NeedsApproval() }
func (c cmdServer) ApprovalErr() error        { return c.s.ApprovalErr() }
func (c cmdServer) RunsText() string          { return RunsText(c.s.Config()) }
func (c cmdServer) URL() string               { return redact.DisplayURL(c.s.Config()) }
func (c cmdServer) OAuthDetail() string       { return c.r.OAuthDetail(c.s.Status().NeedsLogin) }
func (c cmdServer) SkippedText() string       { return SkippedText(c.s.SkippedTools()) }
func (c cmdServer) Redact(line string) string { return c.s.Redact(line) }
func (c cmdServer) Stop(ctx context.Context)  { c.s.Stop(ctx) }
func (c cmdServer) Remote() *remote.Server    { return c.r }
func (c cmdServer) Log() zerolog.Logger       { return c.s.Log() }
func (c cmdServer) RemoteErr(err error) error { return c.s.SessionErr(err) }
func (c cmdServer) LoggedIn() {
	c.r.LoggedIn()
	c.s.LoggedIn()
}

func (c cmdServer) AuthError(format string, args ...any) error {
	return c.s.Errorf(session.KindAuth, nil, format, args...)
}

func (c cmdServer) ConfigError(format string, args ...any) error {
	return c.s.Errorf(lifecycle.KindDisabled, nil, format, args...)
}

func (c cmdServer) CommandLine() string {
	return strings.Join(append([]string{c.s.Config().Raw.Command}, redact.MaskArgs(c.s.Config().Raw.Args)...), " ")
}

// Start words the failure for the user, as the commands show it.
func (c cmdServer) Start(ctx context.Context) error {
	if err := c.s.Start(ctx); err != nil {
		return errors.New(lifecycle.UserText(err))
	}
	return nil
}

func (c cmdServer) Status() commands.Status {
	st := c.s.Status()
	return commands.Status{State: commands.State(st.State.String()), Tools: st.Tools, LastUsed: st.LastUsed,
		LastError: st.LastError, Stderr: st.Stderr, StderrSeen: st.StderrSeen, NeedsLogin: st.NeedsLogin, Failures: st.Failures,
		Protocol: st.Protocol}
}

// SkippedText is the line of /mcp <server> and doctor for the tools a listing skipped,
// each with why ("" when there are none).
func SkippedText(skipped []session.SkippedTool) string {
	if len(skipped) == 0 {
		return ""
	}
	parts := make([]string, 0, len(skipped))
	for _, sk := range skipped {
		parts = append(parts, fmt.Sprintf("%s (%s)", sk.Name, sk.Reason))
	}
	return fmt.Sprintf("%d not offered: %s", len(skipped), textcut.Truncate(strings.Join(parts, "; "), 1000))
}
