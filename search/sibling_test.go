package search

import (
	"slices"
	"testing"
)

// siblingFixture is a small catalog of sibling tools: names of one server
// that share words and differ by a word ("reverse", "all", "un-") or by the
// number of a shared word.
func siblingFixture() []Doc {
	// Each description leans towards the sibling the query does not ask
	// for, so that text alone ranks it first.
	return []Doc{
		mk("maps", "maps_geocode", "Geocode an address into coordinates", Param{Name: "address"}),
		mk("maps", "maps_reverse_geocode", "Reverse geocode: get the address of a place from its coordinates", Param{Name: "latitude"}, Param{Name: "longitude"}),
		mk("maps", "maps_directions", "Get directions between two places"),
		mk("git", "protect_branch", "Protect a branch so that nobody can push to it"),
		mk("git", "unprotect_branch", "Unprotect a branch, such as a release branch, so that anyone can push to it"),
		mk("git", "create_branch", "Create a new branch"),
		mk("git", "list_namespaces", "List namespaces"),
		mk("git", "get_namespace", "Get one of the namespaces you can use"),
		mk("ops", "list_incidents", "List incidents: outages and their timelines, by date"),
		mk("ops", "get_incident", "Get an incident: an outage"),
		mk("todo", "mark_todo_done", "Mark one of all the todos as done"),
		mk("todo", "mark_all_todos_done", "Mark every pending todo as done"),
		mk("helm", "install_helm_chart", "Install a Helm chart into the cluster as a release; the old release is removed"),
		mk("helm", "uninstall_helm_chart", "Uninstall a Helm chart from the cluster"),
		mk("helm", "upgrade_helm_chart", "Upgrade a Helm chart release in the cluster"),
		mk("shop", "list_orders", "List the orders of a shop, with their status"),
	}
}

// TestSiblings shows separateSiblings: among tools of one server whose
// names share words, the words that differ decide. Every case but "no
// reversal asked" (which keeps the reversal cues from firing on the plain
// verb) fails without it: the first hit is the other sibling.
func TestSiblings(t *testing.T) {
	t.Parallel()
	docs := siblingFixture()
	ix := New(docs)
	tests := []struct {
		name, query, first string
	}{
		{"plainer name wins when the extra word is not asked for", "get the coordinates of an address", "mcp__maps__maps_geocode"},
		{"no reversal asked", "protect the release branch", "mcp__git__protect_branch"},
		{"stop with a gerund asks to undo", "stop protecting the release branch", "mcp__git__unprotect_branch"},
		{"a request to delete asks to undo", "remove the old chart release from the cluster", "mcp__helm__uninstall_helm_chart"},
		{"nothing to undo", "put the chart on the cluster", "mcp__helm__install_helm_chart"},
		{"plural in the query", "which namespaces can I use", "mcp__git__list_namespaces"},
		{"the number of the query's other words", "which outages were there", "mcp__ops__list_incidents"},
		{"the extra word asked for", "mark all the todos done", "mcp__todo__mark_all_todos_done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantFirst(t, ix, docs, tt.query, tt.first)
		})
	}
}

// TestSiblingsKeepOtherRanks shows that siblings only trade places with
// each other: tools outside the group (another server, or no name word in
// common) keep their slots, and the scores stay in descending order.
func TestSiblingsKeepOtherRanks(t *testing.T) {
	t.Parallel()
	docs := siblingFixture()
	ix := New(docs)
	doc := func(tool string) int32 {
		i := slices.IndexFunc(docs, func(d Doc) bool { return d.Tool == tool })
		if i < 0 {
			t.Fatalf("no doc %s", tool)
		}
		return int32(i)
	}
	q := "convert an address to coordinates"
	terms, verbs := analyseQuery(q, ix.vocab)
	var c []scored
	for _, x := range []struct {
		tool  string
		score float64
	}{{"maps_reverse_geocode", 10}, {"list_orders", 9.9}, {"maps_directions", 9.8}, {"maps_geocode", 9.5}} {
		c = append(c, scored{doc: doc(x.tool), score: x.score, id: docs[doc(x.tool)].ID})
	}
	ids, _ := ix.termIDs(terms, &scratch{})
	ix.separateSiblings(q, terms, ids, verbs, c)
	var got []string
	var scores []float64
	for _, h := range c {
		got = append(got, docs[h.doc].Tool)
		scores = append(scores, h.score)
	}
	want := []string{"maps_geocode", "list_orders", "maps_directions", "maps_reverse_geocode"}
	if !slices.Equal(got, want) {
		t.Errorf("separateSiblings(%q) = %v, want %v", q, got, want)
	}
	if wantScores := []float64{10, 9.9, 9.8, 9.5}; !slices.Equal(scores, wantScores) {
		t.Errorf("scores after separateSiblings = %v, want the slots' scores %v", scores, wantScores)
	}
}

// TestNameIndex shows what the index keeps of each tool name: its own words
// (without namespace prefixes) once each, with their number, and the words
// that reverse another.
func TestNameIndex(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		mk("gitlab", "gitlab_list_issues", "List issues"),
		mk("kubernetes", "kubectl_uninstall_chart", "Uninstall a chart"),
		mk("kubernetes", "install_chart", "Install a chart"),
		mk("git", "get_file", "Get a file"),
	}
	ix := New(docs)
	term := map[int32]string{}
	for t, id := range ix.vocab {
		term[id] = t
	}
	tests := []struct {
		doc  int32
		want []string // words, "+" after a plural one, "~" after a reversing one
	}{
		{0, []string{"list", "issue+"}},
		{1, []string{"uninstall~", "chart"}},
		{2, []string{"install", "chart"}},
		{3, []string{"get", "file"}},
	}
	for _, tt := range tests {
		var got []string
		for _, w := range ix.nameOf(tt.doc) {
			s := term[termOf(w)]
			if w < 0 {
				s += "+"
			}
			if w&reversesWord != 0 {
				s += "~"
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("name of %s = %v, want %v", docs[tt.doc].Tool, got, tt.want)
		}
	}
	total := int32(0)
	for _, m := range ix.docs {
		total += m.nameWords
	}
	if int(total) != len(ix.names.words) {
		t.Errorf("docs count %d name words, the index holds %d", total, len(ix.names.words))
	}
}
