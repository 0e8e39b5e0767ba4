package commands

import (
	"context"
	"fmt"
	"slices"
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
			s, _ := b.Server(n)
			// A global server's tools held back are approved by "trust all" too.
			if s.Config().Scope != config.ScopeGlobal || (sub == "trust" && len(b.ToolChanges(n).Held()) > 0) {
				out = append(out, n)
			}
		}
		return out, nil
	}
	s, ok := b.Server(args[0])
	if !ok {
		return nil, fmt.Errorf("unknown server %q.%s Servers: %s", args[0], textdist.Suggest(args[0], b.Names()), b.serverList())
	}
	if c := s.Config(); c.Scope == config.ScopeGlobal && (sub != "trust" || !c.PinTools) {
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
	names, err := b.trustTargets("trust", args)
	if err != nil {
		return "", err
	}
	var project []string
	for _, n := range names {
		if s, _ := b.Server(n); s.Config().Scope != config.ScopeGlobal {
			project = append(project, n)
		}
	}
	if b.Config().TrustProjectServers && len(project) > 0 {
		if args[0] != "all" || len(project) == len(names) {
			return "", fmt.Errorf("\"trustProjectServers\": true is set in %s: project servers run without approval, so there is nothing to approve", config.GlobalPath(b.ZotHome()))
		}
		names, project = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(project, n) }), nil
	}
	if len(names) == 0 {
		return "No project servers to approve.", nil
	}
	if len(project) > 0 && b.ProjectDir() == "" {
		return "", fmt.Errorf("the project directory is unknown, so no approval can be stored")
	}
	released := map[string][]string{}
	for _, n := range names {
		released[n] = b.ToolChanges(n).Held()
	}
	list, err := b.Approve(ctx, names)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	if len(project) > 0 {
		fmt.Fprintf(&sb, "Approved for %s (until the entry changes), with their tools as listed now:", b.ProjectDir())
	} else {
		sb.WriteString("Approved the tools of these global servers as listed now:")
	}
	for _, n := range names {
		s, _ := b.Server(n)
		if s.Config().Scope == config.ScopeGlobal {
			fmt.Fprintf(&sb, "\n  %s: its tools (\"pinTools\": true in %s)", n, s.Config().Source)
		} else {
			fmt.Fprintf(&sb, "\n  %s: %s%s", n, s.RunsText(), ReplacesText(s.Config()))
		}
		if !s.Config().Usable() {
			sb.WriteString(" — not usable yet (disabled or config error; see /mcp " + n + ")")
		}
		if r := released[n]; len(r) > 0 {
			sb.WriteString("; no longer held back: " + nameList(r))
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
	var held []string
	for _, n := range b.Names() {
		if h := b.ToolChanges(n).Held(); len(h) > 0 {
			held = append(held, fmt.Sprintf("%s (%s)", n, nameList(h)))
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
	if len(held) > 0 {
		sb.WriteString("\nTools changed since you approved them, held back until you approve them (review with " + b.Surface().Cmd("", "<server>") + "): " + strings.Join(held, "; "))
	}
	sf, all := b.Surface(), "all"
	if sf.Terminal() {
		all = "--all"
	}
	fmt.Fprintf(&sb, "\nApprove with %s; withdraw with %s.", sf.Cmd("trust", "<server>|"+all), sf.Cmd("untrust", "<server>|"+all))
	return sb.String()
}
