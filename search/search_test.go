package search

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sync"
	"testing"

	"github.com/zot-mcp/mcp-bridge/search/query"
)

// mk builds a Doc with the reference naming scheme.
func mk(server, tool, desc string, params ...Param) Doc {
	return Doc{
		ID:          "mcp__" + sanitize(server) + "__" + sanitize(tool),
		Server:      server,
		Tool:        tool,
		Description: desc,
		Params:      params,
	}
}

// fixture is a small catalog with same-named tools on several servers.
func fixture() []Doc {
	return []Doc{
		mk("github", "create_issue", "Create a new issue in a GitHub repository", Param{Name: "owner"}, Param{Name: "repo"}, Param{Name: "title"}),
		mk("gitlab", "create_issue", "Create a new issue in a GitLab project", Param{Name: "project_id"}, Param{Name: "title"}),
		mk("linear", "linear_create_issue", "Create a new issue in Linear", Param{Name: "title"}, Param{Name: "teamId"}),
		mk("github", "create_pull_request", "Create a new pull request in a GitHub repository"),
		mk("github", "list_pull_requests", "List and filter repository pull requests"),
		mk("gitlab", "create_merge_request", "Create a new merge request in a GitLab project"),
		mk("filesystem", "read_file", "Read the complete contents of a file as text."),
		mk("desktop-commander", "read_file", "Read contents from files and URLs."),
		mk("filesystem", "list_directory", "Get a detailed listing of all files and directories in a specified path."),
		mk("kubernetes", "kubectl_logs", "Get logs from Kubernetes resources like pods"),
		mk("slack", "slack_post_message", "Post a new message to a Slack channel", Param{Name: "channel_id", Description: "The ID of the channel"}),
	}
}

func ids(docs []Doc, hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, docs[h.Doc].ID)
	}
	return out
}

func TestSearchRanking(t *testing.T) {
	t.Parallel()
	docs := fixture()
	ix := New(docs)
	tests := []struct {
		name  string
		query string
		first string // expected first hit ID
	}{
		{"server boost gitlab", "create issue in gitlab", "mcp__gitlab__create_issue"},
		{"server boost github", "create a github issue", "mcp__github__create_issue"},
		{"product named last", "new issue for linear", "mcp__linear__linear_create_issue"},
		{"abbreviation PR", "open a PR", "mcp__github__create_pull_request"},
		{"abbreviation MR", "create an MR", "mcp__gitlab__create_merge_request"},
		{"abbreviation k8s", "k8s pod logs", "mcp__kubernetes__kubectl_logs"},
		{"abbreviation ls dir", "ls the dir", "mcp__filesystem__list_directory"},
		{"abbreviation msg", "send a msg to a channel", "mcp__slack__slack_post_message"},
		{"plural", "list PRs", "mcp__github__list_pull_requests"},
		{"camelCase param", "team id", "mcp__linear__linear_create_issue"},
		{"case-insensitive", "CREATE PULL REQUEST", "mcp__github__create_pull_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantFirst(t, ix, docs, tt.query, tt.first)
		})
	}
}

func TestSearchExactAndSelect(t *testing.T) {
	t.Parallel()
	docs := fixture()
	ix := New(docs)
	tests := []struct {
		name      string
		query     string
		limit     int
		wantFirst []string // the exact hits, in order
		wantMore  bool     // ranked hits follow the exact ones
	}{
		{"select by ID and tool", "select:mcp__slack__slack_post_message,list_directory", 8,
			[]string{"mcp__slack__slack_post_message", "mcp__filesystem__list_directory"}, false},
		{"select order kept", "select:list_directory, mcp__slack__slack_post_message", 8,
			[]string{"mcp__filesystem__list_directory", "mcp__slack__slack_post_message"}, false},
		{"select shared tool name", "SELECT:read_file", 8,
			[]string{"mcp__desktop_commander__read_file", "mcp__filesystem__read_file"}, false},
		{"select unknown ignored", "select:nope,create_merge_request,,", 8,
			[]string{"mcp__gitlab__create_merge_request"}, false},
		{"select only unknown", "select:nope", 8, nil, false},
		{"select respects limit", "select:create_issue", 2,
			[]string{"mcp__github__create_issue", "mcp__gitlab__create_issue"}, false},
		{"exact tool name on two servers", "create_issue", 8,
			[]string{"mcp__github__create_issue", "mcp__gitlab__create_issue"}, true},
		{"exact full ID", "  MCP__GITLAB__CREATE_ISSUE ", 8,
			[]string{"mcp__gitlab__create_issue"}, true},
		{"exact shared name", "read_file", 8,
			[]string{"mcp__desktop_commander__read_file", "mcp__filesystem__read_file"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := ix.Search(tt.query, tt.limit)
			var exact []string
			for i, h := range hits {
				if h.Exact {
					if i != len(exact) {
						t.Fatalf("exact hit after a ranked one: %v", hits)
					}
					exact = append(exact, docs[h.Doc].ID)
				}
			}
			if !reflect.DeepEqual(exact, tt.wantFirst) {
				t.Errorf("exact hits = %q, want %q", exact, tt.wantFirst)
			}
			if more := len(hits) > len(exact); more != tt.wantMore {
				t.Errorf("ranked hits after exact = %v, want %v (%v)", more, tt.wantMore, ids(docs, hits))
			}
			if len(hits) > tt.limit {
				t.Errorf("%d hits, limit %d", len(hits), tt.limit)
			}
			seen := map[int]bool{}
			for _, h := range hits {
				if seen[h.Doc] {
					t.Errorf("doc %s returned twice", docs[h.Doc].ID)
				}
				seen[h.Doc] = true
			}
		})
	}
}

func TestSearchEmptyAndLimits(t *testing.T) {
	t.Parallel()
	ix := New(fixture())
	tests := []struct {
		query string
		limit int
		max   int
	}{
		{"", 5, 0},
		{"   \t", 5, 0},
		{"the a of", 5, 0},
		{"zzzqqq", 5, 0},
		{"select:", 5, 0},
		{"issue", 0, DefaultLimit},
		{"issue", -3, DefaultLimit},
		{"issue", 1, 1},
	}
	for _, tt := range tests {
		hits := New(fixture()).Search(tt.query, tt.limit)
		if tt.max == 0 && len(hits) != 0 {
			t.Errorf("Search(%q) = %v, want no hits", tt.query, hits)
		}
		if len(hits) > tt.max {
			t.Errorf("Search(%q, %d) returned %d hits, max %d", tt.query, tt.limit, len(hits), tt.max)
		}
	}
	if hits := New(nil).Search("issue", 5); len(hits) != 0 {
		t.Errorf("empty index returned %v", hits)
	}
	if hits := ix.Search("issue", 0); len(hits) != 3 {
		t.Errorf("Search(issue) = %d hits, want the 3 issue tools", len(hits))
	}
}

func TestSearchTiesByID(t *testing.T) {
	t.Parallel()
	// Identical documents on different servers score the same; the order
	// must follow the ID.
	var docs []Doc
	for _, s := range []string{"zeta", "alpha", "mid", "beta"} {
		docs = append(docs, mk(s, "frobnicate", "Frobnicate the widget"))
	}
	ix := New(docs)
	tests := []struct {
		query string
		limit int
		want  []string
	}{
		{"frobnicate widget", 8, []string{"mcp__alpha__frobnicate", "mcp__beta__frobnicate", "mcp__mid__frobnicate", "mcp__zeta__frobnicate"}},
		{"widget", 2, []string{"mcp__alpha__frobnicate", "mcp__beta__frobnicate"}},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, tt.limit)
		if got := ids(docs, hits); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Search(%q) = %q, want %q", tt.query, got, tt.want)
		}
		for _, h := range hits[1:] {
			if h.Score != hits[0].Score {
				t.Errorf("scores differ for identical docs: %v", hits)
			}
		}
	}
}

func TestSearchDeterministicAndConcurrent(t *testing.T) {
	t.Parallel()
	docs := loadCatalog(t)
	queries := []string{"create issue", "read a file", "take a screenshot", "list pods", "merge the PR"}
	want := map[string][]Hit{}
	for _, q := range queries {
		want[q] = New(docs).Search(q, 20)
	}
	ix := New(docs)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				for _, q := range queries {
					if got := ix.Search(q, 20); !reflect.DeepEqual(got, want[q]) {
						errs <- fmt.Sprintf("Search(%q) differs between runs", q)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestParamsFromSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		schema string
		want   []Param
	}{
		{"ordered properties", `{"type":"object","properties":{"path":{"type":"string","description":"File path"},"head":{"type":"number"},"tail":{"description":"Last N lines"}}}`,
			[]Param{{Name: "path", Description: "File path"}, {Name: "head", Description: ""}, {Name: "tail", Description: "Last N lines"}}},
		{"nested not flattened", `{"type":"object","properties":{"params":{"type":"object","description":"All","properties":{"x":{"description":"inner"}}}}}`,
			[]Param{{Name: "params", Description: "All"}}},
		{"non-string description", `{"properties":{"a":{"description":42},"b":true}}`, []Param{{Name: "a", Description: ""}, {Name: "b", Description: ""}}},
		{"enum values", `{"properties":{"op":{"type":"string","enum":["undo","status",3,""]},"kinds":{"type":"array","items":{"enum":["pod","node"]}}}}`,
			[]Param{{Name: "op", Enum: []string{"undo", "status"}}, {Name: "kinds", Enum: []string{"pod", "node"}}}},
		{"white space and escaped keys", " {\n \"pro\\u0070erties\" : { \"a\\u0062\" : { \"description\" : \"x\" } ,\t\"n\" : 12 , \"s\":\"}\" } } ",
			[]Param{{Name: "ab", Description: "x"}, {Name: "n"}, {Name: "s"}}},
		// A key that is not UTF-8 is kept as written, as before the walk was
		// jsonscan's (Member.Name would make it U+FFFD).
		{"a key that is not UTF-8", "{\"properties\":{\"f\xffo\":{}}}", []Param{{Name: "f\xffo"}}},
		{"the last properties wins", `{"properties":{"a":{}},"type":"object","properties":{"b":{"enum":["x"]}}}`, []Param{{Name: "b", Enum: []string{"x"}}}},
		{"a key only like properties", `{"Properties":{"a":{}}}`, nil},
		{"no properties", `{"type":"object"}`, nil},
		{"empty properties", `{"type":"object","properties":{}}`, nil},
		{"properties not an object", `{"properties":[1,2]}`, nil},
		{"not an object", `[1,2,3]`, nil},
		{"garbage", `{"properties":{"a":`, nil},
		{"empty", ``, nil},
		{"null", `null`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParamsFromSchema(json.RawMessage(tt.schema)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParamsFromSchema(%s) = %+v, want %+v", tt.schema, got, tt.want)
			}
		})
	}
}

func TestBaseline(t *testing.T) {
	t.Parallel()
	docs := fixture()
	tests := []struct {
		query string
		limit int
		want  []string
	}{
		// "create_issue" equals two MCP names (100+25) and is a substring
		// of linear_create_issue's (60+25).
		{"create_issue", 3, []string{"mcp__github__create_issue", "mcp__gitlab__create_issue", "mcp__linear__linear_create_issue"}},
		// server substring (40) beats description substring (15).
		{"slack", 1, []string{"mcp__slack__slack_post_message"}},
		{"", 5, nil},
		{"qqqq", 5, nil},
	}
	for _, tt := range tests {
		if got := ids(docs, Baseline(docs, tt.query, tt.limit)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Baseline(%q) = %q, want %q", tt.query, got, tt.want)
		}
	}
	hits := Baseline(docs, "create issue", 0)
	if len(hits) > DefaultLimit || hits[0].Score != 60+60+25 {
		t.Errorf("Baseline(create issue) = %v", hits)
	}
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	docs := fixture()
	queries := []Query{
		{Q: "a", Want: []string{"github/create_issue"}},               // rank 1
		{Q: "b", Want: []string{"gitlab/create_issue"}},               // rank 2
		{Q: "c", Want: []string{"slack/slack_post_message"}},          // missing
		{Q: "d", Want: []string{"x/y", "linear/linear_create_issue"}}, // rank 3
	}
	rank := func(q string, limit int) []Hit {
		if limit != evalDepth {
			t.Errorf("Evaluate asked for %d hits", limit)
		}
		return []Hit{{Doc: 0}, {Doc: 1}, {Doc: 2}}
	}
	got := Evaluate(rank, docs, queries)
	want := Metrics{N: 4, Recall1: 0.25, Recall5: 0.75, MRR: (1 + 0.5 + 1.0/3) / 4}
	if got.N != want.N || got.Recall1 != want.Recall1 || got.Recall5 != want.Recall5 || got.MRR-want.MRR > 1e-12 || want.MRR-got.MRR > 1e-12 {
		t.Errorf("Evaluate = %+v, want %+v", got, want)
	}
	if m := Evaluate(rank, docs, nil); m != (Metrics{}) {
		t.Errorf("Evaluate(no queries) = %+v", m)
	}
}

func TestSearchCatalogSameNamedTools(t *testing.T) {
	t.Parallel()
	docs := loadCatalog(t)
	ix := New(docs)
	tests := []struct {
		query string
		exact []string // exact hits in order
		first string   // for non-exact queries: the expected first hit
	}{
		{query: "read_file", exact: []string{"mcp__agent_infra_filesystem__read_file", "mcp__desktop_commander__read_file", "mcp__filesystem__read_file"}},
		{query: "create_issue", exact: []string{"mcp__github__create_issue", "mcp__gitlab__create_issue", "mcp__gitlab_zereight__create_issue"}},
		{query: "mcp__gitlab__create_issue", exact: []string{"mcp__gitlab__create_issue"}},
		{query: "create a github issue", first: "mcp__github__create_issue"},
		{query: "open an issue on github", first: "mcp__github__create_issue"},
		{query: "create issue in linear", first: "mcp__linear__linear_create_issue"},
		{query: "use desktop commander to read the file", first: "mcp__desktop_commander__read_file"},
		{query: "merge the PR", first: "mcp__github__merge_pull_request"},
		{query: "approve the MR", first: "mcp__gitlab_zereight__approve_merge_request"},
		{query: "k8s pod logs", first: "mcp__kubernetes__kubectl_logs"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits := ix.Search(tt.query, 8)
			if len(hits) == 0 {
				t.Fatalf("no hits")
			}
			var exact []string
			for _, h := range hits {
				if h.Exact {
					exact = append(exact, docs[h.Doc].ID)
				}
			}
			if !reflect.DeepEqual(exact, tt.exact) {
				t.Errorf("exact = %q, want %q", exact, tt.exact)
			}
			if tt.first != "" && docs[hits[0].Doc].ID != tt.first {
				t.Errorf("first = %s, want %s (%q)", docs[hits[0].Doc].ID, tt.first, ids(docs, hits))
			}
			if tt.exact != nil && len(hits) == len(tt.exact) {
				t.Errorf("no ranked hits after the exact ones")
			}
		})
	}
}

func TestLoadQueries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		path    string
		wantN   int
		wantErr bool
	}{
		{"ok", write("ok.json", `[{"q":"a","kind":"task","want":["s/t"]},{"q":"b","kind":"exact-name","want":["s/u","s/v"]}]`), 2, false},
		{"no kind", write("k.json", `[{"q":"a","want":["s/t"]}]`), 0, true},
		{"unknown kind", write("u.json", `[{"q":"a","kind":"vibes","want":["s/t"]}]`), 0, true},
		{"empty want", write("w.json", `[{"q":"a","kind":"task","want":[]}]`), 0, true},
		{"empty q", write("q.json", `[{"q":"","kind":"task","want":["s/t"]}]`), 0, true},
		{"bad json", write("bad.json", `[{`), 0, true},
		{"missing", dir + "/missing.json", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qs, err := LoadQueries(tt.path)
			if (err != nil) != tt.wantErr || len(qs) != tt.wantN {
				t.Errorf("LoadQueries = %d queries, err %v; want %d, err %v", len(qs), err, tt.wantN, tt.wantErr)
			}
		})
	}
}

func TestParallelBuildMatchesSerial(t *testing.T) {
	t.Parallel()
	docs := replicate(loadCatalog(t), 3*parallelMin/2)
	serial := newIndex(docs, 1)
	for _, workers := range []int{2, 3, 7} {
		if par := newIndex(docs, workers); !reflect.DeepEqual(serial, par) {
			t.Errorf("index built on %d goroutines differs from the serial one", workers)
		}
	}
	if got := New(nil); got == nil || len(got.Search("anything", 5)) != 0 {
		t.Errorf("New(nil) = %v", got)
	}
}

// TestIntentVocabulary shows the ways a request in everyday words reaches a
// tool that uses other words: the intent lexicon (words and phrases), the
// tool's enum values, and the language or format a file name implies.
func TestIntentVocabulary(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		mk("maps", "maps_elevation", "Get elevation data for locations on the earth", Param{Name: "locations"}),
		mk("maps", "maps_distance_matrix", "Calculate travel distance and time for multiple origins and destinations"),
		mk("maps", "maps_geocode", "Convert an address into geographic coordinates", Param{Name: "address"}),
		mk("memory", "create_entities", "Create multiple new entities in the knowledge graph"),
		mk("memory", "delete_entities", "Delete multiple entities and their relations from the knowledge graph"),
		mk("k8s", "node_management", "Manage Kubernetes nodes", Param{Name: "operation", Enum: []string{"cordon", "drain", "uncordon"}}),
		mk("k8s", "kubectl_describe", "Describe Kubernetes resources such as nodes and pods"),
		mk("fs", "read_file", "Read the complete contents of a file as text"),
		mk("fs", "read_media_file", "Read an image or audio file and return base64 data"),
		mk("git", "git_stash", "Save uncommitted changes temporarily in the stash", Param{Name: "mode", Enum: []string{"push", "pop", "list"}}),
		mk("git", "git_commit", "Record changes to the repository"),
	}
	ix := New(docs)
	tests := []struct{ query, first string }{
		{"how high is Denver", "mcp__maps__maps_elevation"}, // phrase
		{"how far is Boston from here", "mcp__maps__maps_distance_matrix"},
		{"forget about Bob", "mcp__memory__delete_entities"}, // word + its verb class
		{"remember that Bob likes tea", "mcp__memory__create_entities"},
		{"uncordon worker-2", "mcp__k8s__node_management"},      // enum value
		{"open holiday.png", "mcp__fs__read_media_file"},        // file extension → format
		{"put my edits aside for later", "mcp__git__git_stash"}, // word
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := ids(docs, ix.Search(tt.query, 3))
			if len(got) == 0 || got[0] != tt.first {
				t.Errorf("Search(%q) = %v, want %s first", tt.query, got, tt.first)
			}
		})
	}
}

// TestMetaWords: words about tools ("parameter", "argument") are not searched
// for, so a tool whose description happens to use them does not win.
func TestMetaWords(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		mk("a", "run_script", "Run a script", Param{Name: "interpreter"}),
		mk("b", "describe_args", "Describe the parameter and argument of a command"),
	}
	ix := New(docs)
	got := ids(docs, ix.Search("the interpreter parameter argument", 2))
	if len(got) != 1 || got[0] != "mcp__a__run_script" {
		t.Errorf("got %v, want only mcp__a__run_script", got)
	}
}

// wantFirst fails the test unless query's first hit is the doc with ID first and the
// scores descend.
func wantFirst(t *testing.T, ix *Index, docs []Doc, query, first string) {
	t.Helper()
	hits := ix.Search(query, 5)
	if len(hits) == 0 || docs[hits[0].Doc].ID != first {
		t.Errorf("Search(%q) = %v, want %s first", query, ids(docs, hits), first)
	}
	wantDescending(t, query, hits)
}

// wantDescending fails the test unless hits' scores never rise.
func wantDescending(t *testing.T, query string, hits []Hit) {
	t.Helper()
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("Search(%q): scores not descending: %v", query, hits)
		}
	}
}

// analyseQuery is query.Analyse in a fresh Analyser, with no idf.
func analyseQuery(q string, vocab map[string]int32) ([]query.Term, uint16) {
	return new(query.Analyser).Analyse(q, vocab, nil)
}
