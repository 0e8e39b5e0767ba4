package bridge

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/internal/words"
	reqneeds "github.com/zot-mcp/mcp-bridge/search/needs"
	"github.com/zot-mcp/mcp-bridge/toolresult"
	"github.com/zot-mcp/mcp-bridge/toolview"
)

// Search limits: the default number of results, the most one call may ask for, and the
// length of the one-line purpose shown per result.
const (
	defaultLimit    = 8
	maxLimit        = 20
	directoryBudget = 1800 // bytes of server directory in the search tool's description
)

var searchSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What you want to do, in a few words (e.g. \"create a github issue\", \"take a browser screenshot\"), a server name, or select:name1,name2 to load exact tool names."},"limit":{"type":"integer","minimum":1,"maximum":20,"description":"How many tools to return (default 8, at most 20)."}},"required":["query"],"additionalProperties":false}`)

// searchDescription tells the model what the catalog holds and how to use the tool. It
// carries a compact directory of servers so the model knows what exists without schemas.
func (b *Bridge) searchDescription(refs []catalog.ToolRef) string {
	return b.searchDescriptionOf(toolview.Directory(refs))
}

// searchDescriptionOf is searchDescription for the server directory dir of the tools.
func (b *Bridge) searchDescriptionOf(dir []toolview.DirEntry) string {
	var sb strings.Builder
	sb.WriteString("Find tools from the user's MCP servers (GitHub, browsers, databases, docs, etc.) and make them callable. ")
	sb.WriteString("Use it before any task that an installed MCP server could do and no tool you already have covers. ")
	switch b.mode {
	case ModeProxy:
		sb.WriteString("Returns matching tools with their input schemas; call one through mcp__call_tool with {server, tool, arguments}. ")
	default:
		sb.WriteString("Returns the best matches (name, purpose, key parameters) and loads them: call a loaded tool by its mcp__<server>__<tool> name on your next step. ")
	}
	sb.WriteString("Search by task words or a server name; `select:<name>` loads exact names. Not needed for tools already loaded.")
	sb.WriteString(" Also finds resources (documents, files) to read.")
	if len(dir) == 0 {
		if len(b.names) == 0 {
			sb.WriteString(" No MCP servers are configured yet: the user can add one with " + b.opts.Surface.Cmd("setup") + ".")
		} else if len(b.gatedNames()) == len(b.names) {
			sb.WriteString(" The configured MCP servers come from the project and wait for the user's approval (" + b.opts.Surface.Cmd("trust") + "); until then they offer no tools.")
		} else {
			sb.WriteString(" No tools are cached yet; they are being listed in the background.")
		}
		return sb.String()
	}
	sb.WriteString(" Servers: ")
	used := 0
	for i, d := range dir {
		item := fmt.Sprintf("%s (%s", d.Server, words.Count(d.Tools, "tool"))
		if len(d.Words) > 0 {
			item += ": " + strings.Join(d.Words, ", ")
		}
		item += ")"
		if used+len(item) > directoryBudget {
			fmt.Fprintf(&sb, " and %d more servers.", len(dir)-i)
			return sb.String()
		}
		if i > 0 {
			sb.WriteString("; ")
		}
		sb.WriteString(item)
		used += len(item) + 2
	}
	sb.WriteString(".")
	return sb.String()
}

type searchArgs struct {
	Query string `json:"query"`
	Limit *int   `json:"limit"`
}

// search answers mcp__search_tools and returns the entries the answer shows.
func (b *Bridge) search(raw json.RawMessage) (extension.ToolResult, []*catalog.Tool) {
	var a searchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return toolresult.Error("%s: invalid arguments: %v. Expected {\"query\": \"words\", \"limit\": 8}.", SearchToolName, err), nil
	}
	limit := defaultLimit
	if a.Limit != nil {
		if *a.Limit < 1 || *a.Limit > maxLimit {
			return toolresult.Error("%s: limit must be between 1 and %d (got %d).", SearchToolName, maxLimit, *a.Limit), nil
		}
		limit = *a.Limit
	}
	q := strings.TrimSpace(a.Query)
	cat := b.catalog()
	if q == "" {
		return toolresult.Error("%s: query is empty. Describe the task in a few words (e.g. \"list open pull requests\") or name a server.", SearchToolName), nil
	}
	if r, ok := b.pendingSearch(q); ok {
		return r, nil
	}
	if len(cat.Entries) == 0 {
		if len(b.names) == 0 {
			sf := b.opts.Surface
			return toolresult.Text(fmt.Sprintf("No MCP servers are configured. The user can add one with `%s` (see `%s`) or by editing mcp.json, then %s.",
				sf.Cmd("setup", "add", "<template>"), sf.Cmd("setup", "templates"), sf.Reload())), nil
		}
		return toolresult.Text(b.noToolsText() + b.pendingHint()), nil
	}
	// Ask for extra hits so filtering out unregistered tools still fills the page.
	hits := cat.SearchIndex().Search(q, limit+8)
	var shown []*catalog.Tool
	var needs []string       // per shown tool: the need of a whole task it answers
	hidden, tooLarge := 0, 0 // found after startup (/reload-ext registers them) | never registrable
	for _, h := range hits {
		e := &cat.Entries[h.Doc]
		if b.mode != ModeProxy && !e.Registered() {
			if cat.Unregistered(e) != "" {
				tooLarge++
			} else {
				hidden++
			}
			continue
		}
		if len(shown) < limit {
			shown = append(shown, e)
			needs = append(needs, h.Need)
		}
	}
	shown, needs = groupByNeed(shown, needs)
	asked := echoRequest(q)
	if len(shown) == 0 {
		msg := fmt.Sprintf("No MCP tools matched %s. Try other task words or a server name (servers: %s).", asked, strings.Join(b.names, ", "))
		if hidden > 0 {
			msg += fmt.Sprintf(" %d matching tools were found after startup; the user must run /reload-ext before they can be loaded.", hidden)
		}
		msg += b.tooLargeHint(tooLarge)
		return toolresult.Text(msg + b.pendingHint()), nil
	}
	if b.mode == ModeProxy {
		r := b.proxySearchAnswer(asked, shown, needs)
		if in := b.searchInstructions(shown); in != "" {
			r.Content[0].Text += in
		}
		return r, shown
	}
	var sb strings.Builder
	names := make([]string, len(shown))
	fmt.Fprintf(&sb, "Loaded %s for %s — call them directly by name:\n", words.Count(len(shown), "MCP tool"), asked)
	for i, e := range shown {
		names[i] = e.Name
		if h := needHeading(needs, i); h != "" {
			sb.WriteString(h + "\n")
		}
		sb.WriteString(toolview.ResultLine(e))
	}
	if len(hits) > len(shown)+hidden {
		fmt.Fprintf(&sb, "More may match: search again with other words, a larger limit (max %d), or select:<name>.", maxLimit)
	} else {
		sb.WriteString("If none fits, search again with other words.")
	}
	if hidden > 0 {
		fmt.Fprintf(&sb, " (%d more matches appeared after startup; /reload-ext loads them.)", hidden)
	}
	sb.WriteString(b.tooLargeHint(tooLarge))
	sb.WriteString(b.searchInstructions(shown))
	return extension.ToolResult{Content: []extension.Content{{Type: "text", Text: sb.String()}}, ActivateTools: names}, shown
}

// maxEcho is the longest request an answer quotes whole: a whole task with
// a pasted log or screenshot would come back to the model at full length.
const maxEcho = 160

// echoRequest quotes the request q for an answer, cut to maxEcho bytes.
func echoRequest(q string) string {
	if len(q) <= maxEcho {
		return fmt.Sprintf("%q", q)
	}
	return fmt.Sprintf("%q (%d characters)", textcut.Truncate(strings.Join(strings.Fields(reqneeds.Clean(q)), " "), maxEcho), utf8.RuneCountInString(q))
}

// groupByNeed orders the tools of a whole task's answer by the need each
// answers (needs[i]; "" is the request as a whole), the groups in the order
// of their best tool, so the answer can say which need each group serves. A
// plain request's tools (every need "") keep their order.
func groupByNeed(shown []*catalog.Tool, needs []string) ([]*catalog.Tool, []string) {
	var order []string
	for _, n := range needs {
		if !slices.Contains(order, n) {
			order = append(order, n)
		}
	}
	if len(order) < 2 && (len(order) == 0 || order[0] == "") {
		return shown, needs
	}
	outS, outN := make([]*catalog.Tool, 0, len(shown)), make([]string, 0, len(needs))
	for _, n := range order {
		for i, e := range shown {
			if needs[i] == n {
				outS, outN = append(outS, e), append(outN, n)
			}
		}
	}
	return outS, outN
}

// needHeading is the line that opens the group of the i-th tool when it is
// the first of its need ("" inside a group, or for a plain request). The
// label is the request's own words (letters and digits only, see package
// search/needs).
func needHeading(needs []string, i int) string {
	if i > 0 && needs[i] == needs[i-1] || !slices.ContainsFunc(needs, func(n string) bool { return n != "" }) {
		return ""
	}
	if needs[i] == "" {
		return "For the request as a whole:"
	}
	return fmt.Sprintf("For the need %q:", needs[i])
}

// tooLargeHint says that n matching tools cannot be loaded at all ("" when n is 0).
func (b *Bridge) tooLargeHint(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d more matches cannot be loaded: the host could not take their definitions; %s names them.)", n, b.opts.Surface.Cmd("", "<server>"))
}

// decodeArgs decodes tool arguments; absent or null arguments decode as {}.
func decodeArgs(raw json.RawMessage, v any) error {
	return json.Unmarshal(jsonscan.Args(raw), v)
}

// noToolsText says why no tool is known when servers are configured: lists being fetched
// right now, or none fetched yet, or fetching failed. Only the first says "try again".
func (b *Bridge) noToolsText() string {
	sf := b.opts.Surface
	if b.refreshing.Load() > 0 {
		if b.mode == ModeProxy {
			return fmt.Sprintf("No MCP tools are known yet: the servers' tool lists are being fetched right now. Try again shortly (details: %s).", sf.Status())
		}
		return fmt.Sprintf("No MCP tools are known yet: the servers' tool lists are being fetched right now. Try again shortly; new tools need %s before they can be loaded (details: %s).", sf.ReloadCmd(), sf.Status())
	}
	var failed []string
	for _, n := range b.names {
		if st := b.servers[n].Status(); st.LastError != "" {
			failed = append(failed, n)
		}
	}
	if len(failed) > 0 {
		return fmt.Sprintf("No MCP tools are known: listing the tools of %s failed (details: %s).", strings.Join(failed, ", "), sf.Status())
	}
	if sf.Terminal() {
		return "No MCP tools are cached yet: nothing has listed the servers' tools. Run `mcp-bridge refresh` to list them."
	}
	return "No MCP tools are cached yet and none are being fetched: the user can run `/mcp refresh`, then /reload-ext."
}
