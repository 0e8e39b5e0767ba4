package query

import (
	"slices"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/search/words"
)

// termWeight is the weight analyseQuery gives term in q (0 when absent).
func termWeight(q, term string) float64 {
	terms, _ := analyseQuery(q, map[string]int32{})
	for _, qt := range terms {
		if qt.Text == term {
			return qt.Weight
		}
	}
	return 0
}

// TestFieldIntents: everyday words of each field reach the tools' words, and
// keys with an apostrophe match the query words they split into.
func TestFieldIntents(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ q, term string }{
		{"bike to the office", "bicycling"},
		{"pull the slider", "drag"},
		{"note that bob likes tea", "observation"},
		{"which customers spent the most", "aggregate"},
		{"is anything on fire", "incident"},
		{"put my work aside", "stash"},
		{"what's new for iphone developers", "latest"},
		{"what's wrong with the pod", "describe"}, // an intents key with an apostrophe
	} {
		if termWeight(tt.q, tt.term) == 0 {
			t.Errorf("%q does not reach %q", tt.q, tt.term)
		}
	}
}

// TestLightWords: take, give, put… and now, today weigh little on their own,
// so "take the train" is not about take_screenshot; other words keep their
// weight.
func TestLightWords(t *testing.T) {
	t.Parallel()
	if w := termWeight("take the train", "take"); w != lightWordWeight {
		t.Errorf("take weighs %.2f, want %.2f", w, lightWordWeight)
	}
	if w := termWeight("take the train", "grab"); w == 0 || w > lightWordWeight*words.SynonymWeight+1e-9 {
		t.Errorf("a synonym of take weighs %.2f, want (0, %.2f]", w, lightWordWeight*words.SynonymWeight)
	}
	if w := termWeight("is anything down right now", "now"); w != lightWordWeight {
		t.Errorf("now weighs %.2f, want %.2f", w, lightWordWeight)
	}
	if w := termWeight("could you help me figure out the build", "help"); w != lightWordWeight {
		t.Errorf("help weighs %.2f, want %.2f", w, lightWordWeight)
	}
	if w := termWeight("drag the card", "drag"); w != 1 {
		t.Errorf("drag weighs %.2f, want 1", w)
	}
}

// TestNamesAreNotVerbs: a capitalised word inside a sentence ("New York")
// names something: it neither sets the query's verb nor expands to synonyms
// at full strength.
func TestNamesAreNotVerbs(t *testing.T) {
	t.Parallel()
	if _, v := analyseQuery("9am in Berlin to New York", nil); v&words.VCreate != 0 {
		t.Errorf("New York: verbs %b include create", v)
	}
	if _, v := analyseQuery("New file for the notes", nil); v&words.VCreate == 0 {
		t.Errorf("a leading New: verbs %b lack create", v)
	}
	if n, c := termWeight("9am in New York", "create"), termWeight("a new file", "create"); n >= c {
		t.Errorf("New in a name expands to create at %.2f, the word new at %.2f", n, c)
	}
}

// TestQuestionSay: in a question, "say" asks what something says, not to
// echo a message.
func TestQuestionSay(t *testing.T) {
	t.Parallel()
	if q, c := termWeight("what does the wiki say about holidays", "echo"), termWeight("say hello", "echo"); q == 0 || q >= c {
		t.Errorf("echo weighs %.2f in a question, %.2f in a command", q, c)
	}
}

// TestAskingWords: "to know" asks; it is not about what is known.
func TestAskingWords(t *testing.T) {
	t.Parallel()
	if w := termWeight("I'd like to know which indexes the orders have", "memory"); w != 0 {
		t.Errorf("to know: memory weighs %.2f, want 0", w)
	}
	if w := termWeight("what do you know about bob", "memory"); w == 0 {
		t.Error("what do you know: no memory term")
	}
	if w := termWeight("do you still know who Carol is", "memory"); w == 0 {
		t.Error("do you still know: no memory term")
	}
	// "find out" and "tell me" ask too.
	if w := termWeight("how do I find out the altitude of our cabin", "find"); w != lightWordWeight {
		t.Errorf("find out: find weighs %.2f, want %.2f", w, lightWordWeight)
	}
	if _, v := analyseQuery("find out the altitude of our cabin", nil); v&words.VSearch != 0 {
		t.Errorf("find out: verbs %b include search", v)
	}
	if w := termWeight("could you tell me who Ana is", "post"); w != 0 {
		t.Errorf("tell me: post weighs %.2f, want 0", w)
	}
	if w := termWeight("tell the team lunch is here", "post"); w == 0 {
		t.Error("tell the team: no post term")
	}
}

// TestWriteAComment: writing a comment, note or reply creates one.
func TestWriteAComment(t *testing.T) {
	t.Parallel()
	if _, v := analyseQuery("write a comment under ENG-9", nil); v&words.VCreate == 0 {
		t.Errorf("write a comment: verbs %b lack create", v)
	}
	if _, v := analyseQuery("write the config to disk", nil); v&words.VCreate != 0 {
		t.Errorf("write the config: verbs %b include create", v)
	}
}

// TestFileNamedAlone: a file named with no verb ("the Dockerfile", "go.mod")
// is to be read; dot-files and capitalised well-known names are files; a
// past form ("added") is still its verb, but "settings" is no verb.
func TestFileNamedAlone(t *testing.T) {
	t.Parallel()
	for w, want := range map[string]string{
		"Dockerfile": "file", "README": "file", ".gitignore": "file", "go.mod": "file",
		"readme": "", "license": "", "gitignore": "",
	} {
		if got := wordShape(w); got != want {
			t.Errorf("wordShape(%q) = %q, want %q", w, got, want)
		}
	}
	if terms, v := analyseQuery("the Dockerfile", nil); v != words.VGet || !slices.ContainsFunc(terms, func(q Term) bool { return q.Text == "read" }) {
		t.Errorf("the Dockerfile: verbs %b, terms %v; want get and read", v, terms)
	}
	if _, v := analyseQuery("requirements.txt needs flask added", nil); v&words.VCreate == 0 {
		t.Errorf("… added: verbs %b lack create", v)
	}
	if _, v := analyseQuery("the .env file's settings", nil); v&words.VUpdate != 0 {
		t.Errorf("settings: verbs %b include update", v)
	}
}

// TestQuantifierVerbs: a noun phrase asking for all of something lists, one
// in detail gets; a command with its own verb, or a phrase that is not a
// noun phrase, is left alone.
func TestQuantifierVerbs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		q    string
		want uint16
	}{
		{"every open pull request in the repo", words.VList},
		{"all labels in the project", words.VList},
		{"the details of one label", words.VGet},
		// A verb decides, not "one": fix takes the class of its WordNet
		// synonym set (thesaurusVerbClass).
		{"fix the wording in one block", words.VUpdate},
		{"delete all labels", words.VDelete},
	} {
		if _, v := analyseQuery(tt.q, nil); v != tt.want {
			t.Errorf("%q: verbs %b, want %b", tt.q, v, tt.want)
		}
	}
}

// TestIntentKeyLength checks what addIntents relies on: only keys that begin
// with a CJK character pair (read through the run's cover) run longer than
// maxIntentWords words, so no other key is missed.
func TestIntentKeyLength(t *testing.T) {
	t.Parallel()
	for k := range lexiconTables().intents.all() {
		ws := strings.Fields(k)
		if len(ws) > maxIntentWords && !IsCJKPair(ws[0]) {
			t.Errorf("intent key %q has %d words, more than maxIntentWords (%d), and begins with no CJK character pair", k, len(ws), maxIntentWords)
		}
	}
}
