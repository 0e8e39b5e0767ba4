package search

import "github.com/zot-mcp/mcp-bridge/search/token"

// Query expansion, verb classes and product words. All tables below are
// written in analysed form (lower case, singular) and are only ever read.

// Weights of expanded query terms relative to an original term (1.0).
const (
	// abbrevWeight applies to expansions that mean the same thing
	// (PR → pull request, k8s → kubernetes, repo → repository).
	abbrevWeight = 0.9
	// synonymWeight applies to looser synonyms (remove ~ delete, fetch ~ get).
	synonymWeight = 0.45
)

// abbreviations maps a term to the terms it stands for. Single-word entries
// also apply in reverse (repository → repo), so documents that use the short
// form are found by the long one; multi-word expansions apply one way only.
var abbreviations = map[string][]string{
	"pr":         {"pull", "request"},
	"mr":         {"merge", "request"},
	"repo":       {"repository"},
	"db":         {"database"},
	"k8s":        {"kubernetes"},
	"kube":       {"kubernetes"},
	"kubectl":    {"kubernetes"},
	"msg":        {"message"},
	"img":        {"image"},
	"pic":        {"picture"},
	"dir":        {"directory"},
	"doc":        {"documentation"},
	"env":        {"environment"},
	"cfg":        {"configuration"},
	"config":     {"configuration"},
	"js":         {"javascript"},
	"ts":         {"typescript"},
	"py":         {"python"},
	"gh":         {"github"},
	"tz":         {"timezone"},
	"ls":         {"list"},
	"rm":         {"remove", "delete"},
	"mv":         {"move", "rename"},
	"cp":         {"copy"},
	"cwd":        {"working", "directory"},
	"auth":       {"authentication"},
	"info":       {"information"},
	"stat":       {"statistic"},
	"yml":        {"yaml"},
	"postgresql": {"postgres"},
	"psql":       {"postgres"},
	"mongo":      {"mongodb"},
	"xhr":        {"network", "request"},
	"a11y":       {"accessibility"},
	"ttl":        {"expiration"},
	"pid":        {"process"},
	"lat":        {"latitude"},
	"lng":        {"longitude"},
	"pw":         {"password"},
	"regex":      {"regular", "expression"},
	"ci":         {"pipeline"},
	"vm":         {"virtual", "machine"},
	"org":        {"organization"},
	"ai":         {"artificial", "intelligence"},
}

// strongSynonyms are pairs of words used interchangeably in tool names and
// descriptions; they expand both ways at abbrevWeight.
var strongSynonyms = [][2]string{
	{"folder", "directory"},
	{"find", "search"},
	{"lookup", "search"},
	{"ticket", "issue"},
	{"picture", "image"},
	{"photo", "image"},
	{"remove", "delete"},
}

// synonymGroups are sets of interchangeable words; each member expands to the
// others at synonymWeight.
var synonymGroups = [][]string{
	{"delete", "remove", "drop", "erase", "destroy", "purge", "forget"},
	{"get", "fetch", "retrieve", "download", "obtain"},
	{"read", "view", "show", "display", "see", "look"},
	{"list", "enumerate", "browse"},
	{"create", "new", "add", "make", "insert"},
	{"update", "edit", "modify", "change", "patch", "alter", "replace"},
	{"search", "find", "lookup", "locate"},
	{"run", "execute", "exec", "launch", "trigger", "invoke"},
	{"send", "post", "publish"},
	{"write", "save", "store", "persist"},
	{"directory", "folder"},
	{"image", "picture", "photo", "screenshot"},
	{"comment", "note", "reply"},
	{"issue", "ticket", "bug"},
	{"kill", "terminate", "stop"},
	{"rename", "move"},
	{"error", "exception", "failure", "crash"},
	{"website", "site", "webpage", "page"},
	{"chart", "plot", "diagram", "graph", "visualize", "visualization"},
	{"click", "press", "tap"},
	{"type", "input", "enter", "fill"},
	{"capture", "record", "snapshot"},
	{"label", "tag"},
	{"user", "member", "people", "person", "account"},
	{"undo", "reset", "revert"},
	{"rollback", "roll", "rollout"},
	{"deploy", "deployment", "release"},
	{"spreadsheet", "sheet", "table", "csv"},
	{"remember", "memorize", "memory", "entity", "observation"},
	{"coordinate", "geocode", "latitude", "longitude"},
	{"directions", "route", "driving", "drive", "travel"},
	{"log", "history"},
	{"diff", "difference", "change"},
	{"approve", "approval"},
	{"shell", "terminal", "command", "bash", "cli"},
	{"script", "snippet"},
	{"video", "screencast"},
	{"row", "record"},
	{"ticket", "issue"},
	{"clock", "time"},
	{"folder", "path"},
	{"size", "space", "big", "biggest", "largest", "large", "disk"},
	{"link", "relation", "relate", "connect", "associate"},
	{"near", "nearby", "local", "around", "close"},
	{"grab", "get", "capture", "take"},
	{"load", "read", "open"},
	{"evaluate", "run", "execute"},
	{"login", "logged", "signed", "authenticated", "authentication", "whoami"},
	{"count", "many", "number", "total"},
	{"forget", "memory", "remember"},
	{"mode", "scheme", "theme"},
	{"structure", "hierarchy", "tree"},
}

// Verb classes, as bits, for verb-object matching: a tool whose name starts
// with a verb of a class the query uses gets a bonus.
const (
	vCreate uint16 = 1 << iota
	vGet
	vList
	vDelete
	vUpdate
	vSearch
	vRun
	vSend
	vWrite
	vNavigate
	vMerge
	vStop
)

// verbClasses maps verbs (in query or at the head of a tool name) to classes.
var verbClasses = map[string]uint16{
	"create": vCreate, "add": vCreate, "new": vCreate, "make": vCreate,
	"insert": vCreate, "generate": vCreate, "open": vCreate | vGet | vNavigate,
	"post": vCreate | vSend, "build": vCreate, "start": vCreate | vRun,
	"get": vGet, "fetch": vGet, "retrieve": vGet, "read": vGet,
	"show": vGet | vList, "view": vGet, "describe": vGet, "inspect": vGet,
	"download": vGet, "check": vGet, "see": vGet, "look": vGet | vSearch,
	"list": vList, "ls": vList, "enumerate": vList, "browse": vList,
	"delete": vDelete, "remove": vDelete, "rm": vDelete, "drop": vDelete,
	"erase": vDelete, "destroy": vDelete, "purge": vDelete, "forget": vDelete,
	"uninstall": vDelete, "clean": vDelete, "clear": vDelete,
	"update": vUpdate, "edit": vUpdate, "modify": vUpdate, "change": vUpdate,
	"patch": vUpdate, "set": vUpdate, "alter": vUpdate, "rename": vUpdate,
	"replace": vUpdate, "upgrade": vUpdate,
	"search": vSearch, "find": vSearch, "query": vSearch, "lookup": vSearch,
	"locate": vSearch,
	"run":    vRun, "execute": vRun, "exec": vRun, "launch": vRun,
	"trigger": vRun, "invoke": vRun, "evaluate": vRun, "rerun": vRun,
	"send": vSend, "publish": vSend, "reply": vSend, "say": vSend, "echo": vSend,
	"push":  vSend | vWrite,
	"write": vWrite, "save": vWrite, "store": vWrite, "put": vWrite,
	"navigate": vNavigate, "go": vNavigate, "visit": vNavigate,
	"merge": vMerge,
	"stop":  vStop, "kill": vStop, "terminate": vStop, "cancel": vStop,
	"close": vStop | vUpdate, "pause": vStop,
}

// phrasalVerbs turn a verb whose meaning depends on its object into the verb
// tool names use: "open a PR" and "file a bug" create, "close the issue"
// updates. Keys are the verb, then the objects that trigger the rule.
var phrasalVerbs = map[string]struct {
	objects []string
	means   string
}{
	"open":   {[]string{"issue", "pr", "pull", "mr", "merge", "ticket", "bug"}, "create"},
	"file":   {[]string{"issue", "ticket", "bug", "report"}, "create"},
	"raise":  {[]string{"issue", "ticket", "bug"}, "create"},
	"close":  {[]string{"issue", "pr", "pull", "mr", "merge", "ticket", "bug"}, "update"},
	"reopen": {[]string{"issue", "pr", "pull", "mr", "merge", "ticket", "bug"}, "update"},
	"write":  {[]string{"issue", "ticket", "bug", "comment", "note", "reply", "review"}, "create"},
	"log":    {[]string{"issue", "ticket", "bug"}, "create"},
	"leave":  {[]string{"comment", "note", "review", "reaction", "feedback"}, "create"},
}

// namePrefixes are leading name tokens that are namespaces rather than verbs
// (API-get-user, kubectl_get, browser_click).
var namePrefixes = map[string]bool{
	"api": true, "kubectl": true, "browser": true, "mcp": true, "tool": true,
}

// genericServerWords are words that often appear in server names but do not
// name a product: a query containing them does not select a server.
var genericServerWords = map[string]bool{
	"everything": true, "memory": true, "sequential": true, "thinking": true,
	"search": true, "map": true, "maps": true, "retrieval": true, "kb": true,
	"command": true, "code": true, "runner": true, "agent": true,
	"infra": true, "filesystem": true, "file": true, "desktop": true,
	"hello": true, "world": true, "time": true, "chart": true,
	"official": true, "doc": true, "documentation": true, "fetch": true,
	"server": true, "mcp": true, "api": true, "hub": true, "data": true,
	"web": true, "browser": true, "tool": true, "local": true, "remote": true,
	"test": true, "demo": true, "example": true, "dev": true, "prod": true,
	"cloud": true, "client": true, "node": true, "python": true, "go": true,
	"js": true, "ts": true, "http": true, "stdio": true, "sse": true,
	"new": true, "old": true,
	"v1": true, "v2": true, "v3": true, "beta": true, "alpha": true,
}

// expansion is one extra query term with its weight.
type expansion struct {
	term   string
	weight float64
	strong bool // abbreviation-strength: also counts for server naming
}

// expansionTable builds the term → expansions lookup used by queries;
// queryTables holds the one built.
func expansionTable() map[string][]expansion {
	m := map[string][]expansion{}
	add := func(from, to string, w float64, strong bool) {
		from, to = token.Singular(from), token.Singular(to)
		if from == to {
			return
		}
		for i, e := range m[from] {
			if e.term == to {
				if w > e.weight {
					m[from][i] = expansion{to, w, strong || e.strong}
				}
				return
			}
		}
		m[from] = append(m[from], expansion{to, w, strong})
	}
	for from, tos := range abbreviations {
		for _, to := range tos {
			add(from, to, abbrevWeight, true)
		}
		if len(tos) == 1 {
			add(tos[0], from, abbrevWeight, true)
		}
	}
	for _, p := range strongSynonyms {
		add(p[0], p[1], abbrevWeight, false)
		add(p[1], p[0], abbrevWeight, false)
	}
	for _, g := range synonymGroups {
		for _, a := range g {
			for _, b := range g {
				add(a, b, synonymWeight, false)
			}
		}
	}
	return m
}
