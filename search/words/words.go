// Package words holds the word tables the search index and its queries share, as data.
//
// They are the verb classes, phrasal verbs, abbreviations and synonyms, the namespace
// prefixes of tool names and the generic words of server names.
package words

import "github.com/zot-mcp/mcp-bridge/search/token"

// All tables below are written in analysed form (lower case, singular) and
// are only ever read; they are reached through the functions beside them.

// Weights of expanded query terms relative to an original term (1.0).
const (
	// AbbrevWeight applies to expansions that mean the same thing
	// (PR → pull request, k8s → kubernetes, repo → repository).
	AbbrevWeight = 0.9
	// SynonymWeight applies to looser synonyms (remove ~ delete, fetch ~ get).
	SynonymWeight = 0.45
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
// descriptions; they expand both ways at AbbrevWeight.
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
// others at SynonymWeight.
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
	// VCreate and the rest name one class each: create, get, list, delete,
	// update, search, run, send, write, navigate, merge, stop.
	VCreate uint16 = 1 << iota
	VGet
	VList
	VDelete
	VUpdate
	VSearch
	VRun
	VSend
	VWrite
	VNavigate
	VMerge
	VStop
)

// VerbClass returns the verb classes of w, 0 when it is no verb the ranker
// knows.
func VerbClass(w string) uint16 { return verbClasses[w] }

// verbClasses maps verbs (in query or at the head of a tool name) to classes.
var verbClasses = map[string]uint16{
	"create": VCreate, "add": VCreate, "new": VCreate, "make": VCreate,
	"insert": VCreate, "generate": VCreate, "open": VCreate | VGet | VNavigate,
	"post": VCreate | VSend, "build": VCreate, "start": VCreate | VRun,
	"get": VGet, "fetch": VGet, "retrieve": VGet, "read": VGet,
	"show": VGet | VList, "view": VGet, "describe": VGet, "inspect": VGet,
	"download": VGet, "check": VGet, "see": VGet, "look": VGet | VSearch,
	"list": VList, "ls": VList, "enumerate": VList, "browse": VList,
	"delete": VDelete, "remove": VDelete, "rm": VDelete, "drop": VDelete,
	"erase": VDelete, "destroy": VDelete, "purge": VDelete, "forget": VDelete,
	"uninstall": VDelete, "clean": VDelete, "clear": VDelete,
	"update": VUpdate, "edit": VUpdate, "modify": VUpdate, "change": VUpdate,
	"patch": VUpdate, "set": VUpdate, "alter": VUpdate, "rename": VUpdate,
	"replace": VUpdate, "upgrade": VUpdate,
	"search": VSearch, "find": VSearch, "query": VSearch, "lookup": VSearch,
	"locate": VSearch,
	"run":    VRun, "execute": VRun, "exec": VRun, "launch": VRun,
	"trigger": VRun, "invoke": VRun, "evaluate": VRun, "rerun": VRun,
	"send": VSend, "publish": VSend, "reply": VSend, "say": VSend, "echo": VSend,
	"push":  VSend | VWrite,
	"write": VWrite, "save": VWrite, "store": VWrite, "put": VWrite,
	"navigate": VNavigate, "go": VNavigate, "visit": VNavigate,
	"merge": VMerge,
	"stop":  VStop, "kill": VStop, "terminate": VStop, "cancel": VStop,
	"close": VStop | VUpdate, "pause": VStop,
}

// PhrasalVerb returns, for a verb whose meaning depends on its object, the
// objects that change it and the verb tool names use instead.
func PhrasalVerb(verb string) (objects []string, means string, ok bool) {
	p, ok := phrasalVerbs[verb]
	return p.objects, p.means, ok
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

// NamePrefix reports whether w, leading a tool name, is a namespace rather
// than a verb.
func NamePrefix(w string) bool { return namePrefixes[w] }

// namePrefixes are leading name tokens that are namespaces rather than verbs
// (API-get-user, kubectl_get, browser_click).
var namePrefixes = map[string]bool{
	"api": true, "kubectl": true, "browser": true, "mcp": true, "tool": true,
}

// GenericServerWord reports whether w, a word of a server name, names no
// product.
func GenericServerWord(w string) bool { return genericServerWords[w] }

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

// Expansion is one extra query term with its weight.
type Expansion struct {
	Term   string
	Weight float64
	Strong bool // abbreviation-strength: also counts for server naming
}

// Expansions builds the term → expansions lookup used by queries, anew on
// each call: the caller keeps the one it built.
func Expansions() map[string][]Expansion {
	m := map[string][]Expansion{}
	add := func(from, to string, w float64, strong bool) {
		from, to = token.Singular(from), token.Singular(to)
		if from == to {
			return
		}
		for i, e := range m[from] {
			if e.Term == to {
				if w > e.Weight {
					m[from][i] = Expansion{to, w, strong || e.Strong}
				}
				return
			}
		}
		m[from] = append(m[from], Expansion{to, w, strong})
	}
	for from, tos := range abbreviations {
		for _, to := range tos {
			add(from, to, AbbrevWeight, true)
		}
		if len(tos) == 1 {
			add(tos[0], from, AbbrevWeight, true)
		}
	}
	for _, p := range strongSynonyms {
		add(p[0], p[1], AbbrevWeight, false)
		add(p[1], p[0], AbbrevWeight, false)
	}
	for _, g := range synonymGroups {
		for _, a := range g {
			for _, b := range g {
				add(a, b, SynonymWeight, false)
			}
		}
	}
	return m
}
