package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/textdist"
)

// ReplacesText flags an entry that replaced the global entry of the same name ("" when it
// replaced none).
func ReplacesText(c *config.Server) string {
	if c.Replaces == "" {
		return ""
	}
	return " (it replaces the entry of the same name in " + c.Replaces + ")"
}

// trustTargets resolves the argument of trust/untrust to servers that need approval.
func (b host) trustTargets(sub string, args []string) ([]string, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("usage: /mcp %s <server|all>", sub)
	}
	if args[0] == "all" {
		var out []string
		for _, n := range b.Names() {
			if s, _ := b.Server(n); s.Config().Scope != config.ScopeGlobal {
				out = append(out, n)
			}
		}
		return out, nil
	}
	s, ok := b.Server(args[0])
	if !ok {
		return nil, fmt.Errorf("unknown server %q.%s Servers: %s", args[0], textdist.Suggest(args[0], b.Names()), b.serverList())
	}
	if c := s.Config(); c.Scope == config.ScopeGlobal {
		return nil, fmt.Errorf("MCP server %q is defined in your global file %s; it needs no approval", args[0], c.Source)
	}
	return args, nil
}

// trust approves project servers for this project: it stores the approval of each
// entry as it is now, lets the servers run, and (inside zot) lists the tools of those
// without a fresh cache entry in the background.
func (b host) trust(ctx context.Context, args []string) (string, error) {
	if len(args) == 0 {
		return b.trustList(), nil
	}
	if b.Config().TrustProjectServers {
		return "", fmt.Errorf("\"trustProjectServers\": true is set in %s: project servers run without approval, so there is nothing to approve", config.GlobalPath(b.ZotHome()))
	}
	names, err := b.trustTargets("trust", args)
	if err != nil {
		return "", err
	}
	if len(names) == 0 {
		return "No project servers to approve.", nil
	}
	if b.ProjectDir() == "" {
		return "", fmt.Errorf("the project directory is unknown, so no approval can be stored")
	}
	list, err := b.Approve(ctx, names)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Approved for %s (until the entry changes):", b.ProjectDir())
	for _, n := range names {
		s, _ := b.Server(n)
		fmt.Fprintf(&sb, "\n  %s: %s%s", n, s.RunsText(), ReplacesText(s.Config()))
		if !s.Config().Usable() {
			sb.WriteString(" — not usable yet (disabled or config error; see /mcp " + n + ")")
		}
	}
	switch {
	case len(list) == 0:
		sb.WriteString("\nRun /reload-ext in zot to load their tools.")
	case !b.InZot():
		sb.WriteString("\nTheir tools are listed on the next zot start (or run mcp-bridge refresh).")
	default:
		sb.WriteString("\nListing the tools of " + strings.Join(list, ", ") + " in the background; a note will say when /reload-ext can load them.")
		b.ListLater(list)
	}
	return sb.String(), nil
}

// untrust withdraws approvals for this project and stops the servers concerned.
func (b host) untrust(ctx context.Context, args []string) (string, error) {
	names, err := b.trustTargets("untrust", args)
	if err != nil {
		return "", err
	}
	if b.ProjectDir() == "" {
		return "", fmt.Errorf("the project directory is unknown, so there are no approvals to withdraw")
	}
	var which []string // nil: every approval of the project, also of servers no longer configured
	if args[0] != "all" {
		which = names
	}
	removed, err := b.Revoke(ctx, names, which)
	if err != nil {
		return "", err
	}
	if len(removed) == 0 {
		return fmt.Sprintf("No approvals to withdraw for %s in %s.", strings.Join(args, " "), b.ProjectDir()), nil
	}
	text := fmt.Sprintf("Withdrew the approval of %s for %s; they are stopped and need approval again.", strings.Join(removed, ", "), b.ProjectDir())
	if b.Config().TrustProjectServers {
		text += " Note: \"trustProjectServers\": true in your global file still lets project servers run."
	}
	return text, nil
}

// trustList is /mcp trust without arguments: what waits for approval.
func (b host) trustList() string {
	var sb strings.Builder
	var pending []string
	for _, n := range b.Names() {
		if s, _ := b.Server(n); s.NeedsApproval() {
			pending = append(pending, n)
		}
	}
	if len(pending) == 0 {
		sb.WriteString("No project servers wait for approval.")
	} else {
		sb.WriteString("Project servers awaiting your approval:")
		for _, n := range pending {
			s, _ := b.Server(n)
			c := s.Config()
			fmt.Fprintf(&sb, "\n  %s: %s%s [%s]", n, s.RunsText(), ReplacesText(c), c.Source)
		}
	}
	sf, all := b.Surface(), "all"
	if sf == SurfaceCLI {
		all = "--all"
	}
	fmt.Fprintf(&sb, "\nApprove with %s; withdraw with %s.", sf.Cmd("trust", "<server>|"+all), sf.Cmd("untrust", "<server>|"+all))
	return sb.String()
}
