package query

import (
	"strings"
	"testing"
)

// formVocab is an index vocabulary of the words the form rules reach, with
// the idf of each: the rare forms (committing, colour) of a large catalog
// and their common bases, and the words a misread form would wrongly reach.
func formVocab() (map[string]int32, []float64) {
	words := map[string]float64{
		"optimize": 5, "color": 4, "attendance": 6, "translate": 4, "upload": 3, "priority": 4,
		"analyze": 4, "deploy": 3, "install": 3, "schedule": 4, "plan": 4, "summarize": 5,
		"commit": 2.5, "committing": 6, "centre": 6, "center": 2, "add": 2, "added": 3, "list": 1.2, "listing": 4, "listed": 2,
		// Words a form must not reach.
		"search": 2, "source": 3, "store": 3, "busy": 5, "real": 4, "apple": 5, "let": 4,
		"strain": 5, "flor": 6, "ban": 4, "track": 5, "late": 4, "port": 3, "sent": 4, "mode": 4,
		"edit": 3, "print": 4, "console": 4, "log": 3, "output": 4, "com": 2, "coming": 6,
		"factor": 5, "produce": 5, "claim": 5, "cape": 6, "done": 3, "base": 3, "design": 4, "form": 3,
		"char": 5, "digit": 5, "host": 3, "post": 3, "author": 4, "stat": 3, "state": 2, "stated": 6,
	}
	vocab := map[string]int32{}
	idf := make([]float64, 0, len(words))
	for w, f := range words {
		vocab[w] = int32(len(idf))
		idf = append(idf, f)
	}
	return vocab, idf
}

// TestUnknownEnglishWordIsReadByItsForm: an English word the index does not
// know reaches the word of its family it does know, by a British spelling,
// a derivational suffix, a doubled consonant or the re- of doing it again,
// always weighing less than a word as written; a form the index does know
// but far less often than its base also reaches the base, at less weight
// still. Each misreading row is one a rule made without its guard: a
// dictionary word with the suffix (business, realize, apply) or the prefix
// (restrain), a word that begins as re- without being one (research), a
// short stem before a British ending (flour) or a suffix (banner, portion,
// sentence, modal, coming, added), an agent noun of another sense
// (editor), and a form nearly as common as its base (listed). A word read
// as one of its family takes none of that word's senses (printable is no
// console print).
func TestUnknownEnglishWordIsReadByItsForm(t *testing.T) {
	t.Parallel()
	vocab, idf := formVocab()
	tests := []struct {
		query string
		want  string  // the word reached, "" for none
		most  float64 // its highest allowed weight
		not   []string
	}{
		{"optimise the route", "optimize", spellingWeight, nil},
		{"optimising the route", "optimize", spellingWeight, nil},
		{"recolour the cells", "color", againWeight, nil},
		{"summarisation of the channel", "summarize", derivedWeight, nil},
		{"analysed data", "analyze", spellingWeight, nil},
		{"who is attending", "attendance", derivedWeight, nil},
		{"translation of the page", "translate", derivedWeight, nil},
		{"the uploader", "upload", derivedWeight, nil},
		{"reupload the photo", "upload", againWeight, nil},
		{"redeploying the app", "deploy", againWeight, nil},
		{"prioritize the backlog", "priority", derivedWeight, nil},
		{"deployment guide", "deploy", derivedWeight, nil},
		{"the planner", "plan", derivedWeight, nil},
		{"who has been committing", "commit", knownFormWeight, nil},
		{"the centre of the map", "center", knownFormWeight, nil},
		{"as stated in the issue", "state", knownFormWeight, []string{"stat"}},
		// Guards.
		{"research papers", "", 0, []string{"search"}},
		{"restrain the worker", "", 0, []string{"strain"}},
		{"business hours", "", 0, []string{"busy"}},
		{"realize the plan", "", 0, []string{"real"}},
		{"apply it", "", 0, []string{"apple"}},
		{"flour and sugar", "", 0, []string{"flor"}},
		{"show a banner", "", 0, []string{"ban"}},
		{"a portion of the file", "", 0, []string{"port"}},
		{"a sentence to the readme", "", 0, []string{"sent"}},
		{"close the modal", "", 0, []string{"mode"}},
		{"my favourite editor", "", 0, []string{"edit"}},
		{"friends coming over", "", 0, []string{"com"}},
		// A re- of no tool's operation, and dictionary words, short
		// stems and agent nouns that only look derived.
		{"refactor the module", "", 0, []string{"factor"}},
		{"reproduce the bug", "", 0, []string{"produce"}},
		{"reclaim the disk", "", 0, []string{"claim"}},
		{"a capable model", "", 0, []string{"cape"}},
		{"a consolation prize", "", 0, []string{"console"}},
		{"a donation link", "", 0, []string{"done"}},
		{"the basement lights", "", 0, []string{"base"}},
		{"the designation field", "", 0, []string{"design"}},
		{"a formation chart", "", 0, []string{"form"}},
		{"a charity event", "", 0, []string{"char"}},
		{"a digital copy", "", 0, []string{"digit"}},
		{"a hostage note", "", 0, []string{"host"}},
		{"the postage cost", "", 0, []string{"post"}},
		{"authorize the app", "", 0, []string{"author"}},
		// A word of the family is searched for, not its senses.
		{"a printable pdf", "print", derivedWeight, []string{"console", "log", "output"}},
		{"a reprintable pdf", "print", againWeight, []string{"console", "log", "output"}},
		{"flask added", "", 0, []string{"add"}},
		{"the files listed", "", 0, []string{"list"}},
	}
	for _, tt := range tests {
		got := termWeights(tt.query, vocab, idf)
		if tt.want != "" {
			w, ok := got[tt.want]
			switch {
			case !ok:
				t.Errorf("%q: no term %q (terms %v)", tt.query, tt.want, got)
			case w > tt.most+1e-9 || w >= 1:
				t.Errorf("%q: %q weighs %.2f, want at most %.2f (below the word as written)", tt.query, tt.want, w, tt.most)
			}
		}
		for _, n := range tt.not {
			if _, ok := got[n]; ok {
				t.Errorf("%q: term %q of a misread form (terms %v)", tt.query, n, got)
			}
		}
	}
}

// TestFormReadingMissAllocatesNothing: a word that reaches no form costs
// no garbage, so the unknown words of a long request stay cheap.
func TestFormReadingMissAllocatesNothing(t *testing.T) {
	vocab, _ := formVocab()
	tables := lexiconTables()
	buf := make([]byte, 0, 64)
	for _, w := range []string{strings.Repeat("q", 30) + "isations", "qqqqqqtion", "reqqqqqqing", "qqqqqqour"} {
		if n := testing.AllocsPerRun(50, func() { readForm(w, vocab, tables, &buf) }); n != 0 {
			t.Errorf("readForm(%q) allocates %v times, want 0", w, n)
		}
	}
}

// TestHyphenedWordIsReadWhole: a word written with hyphens (to-do, log-in,
// e-mail) that the ranker knows as one word is read as that word, with its
// senses, beside its parts; a join too short to tell (x-y) is not, nor a
// name with digits (us-east-1), nor a chunk of more hyphens than a word
// has, or longer than a word is, or with a part missing (a flag, a
// trailing hyphen).
func TestHyphenedWordIsReadWhole(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("abcdefghij", 3) + "-" + strings.Repeat("klmnopqrst", 2)
	vocab := map[string]int32{"todo": 0, "login": 1, "email": 2, "xy": 3, "useast1": 4, "plot": 5, "task": 6,
		"longrunningbatchjob": 7, "dryrun": 8, strings.ReplaceAll(long, "-", ""): 9}
	tests := []struct {
		query string
		want  []string // terms at the full weight of a word
		not   []string // terms that must not weigh as a word
	}{
		{"give a teammate a To-Do", []string{"todo"}, nil},
		{"set up a log-in page", []string{"login"}, nil},
		{"e-mail the report", []string{"email"}, nil},
		{"an x-y plot", nil, []string{"xy"}},
		{"the us-east-1 region", nil, []string{"useast1"}},
		{"a long-running-batch-job here", nil, []string{"longrunningbatchjob"}},
		{"pass dry-run- to it", nil, []string{"dryrun"}},
		{"an " + long + " one", nil, []string{strings.ReplaceAll(long, "-", "")}},
	}
	for _, tt := range tests {
		got := termWeights(tt.query, vocab, nil)
		for _, w := range tt.want {
			if got[w] != 1 {
				t.Errorf("%q: %q weighs %v, want 1 (terms %v)", tt.query, w, got[w], got)
			}
		}
		for _, w := range tt.not {
			if got[w] == 1 {
				t.Errorf("%q: %q weighs as a word of its own (terms %v)", tt.query, w, got)
			}
		}
	}
}

// TestRepeatedEnglishFormIsReadOnce: an English word a request repeats
// (a pasted log) reads as its first occurrence did, not by its form anew
// at each: repeating words read by their form costs no more allocations
// per repeat than repeating words of the same lengths that nothing reads.
func TestRepeatedEnglishFormIsReadOnce(t *testing.T) {
	vocab, idf := formVocab()
	growth := repeatGrowth(vocab, idf, "")
	forms, plain := growth("optimising translation reupload committing "), growth("zzzzzzzzzz xxxxxxxxxxx wwwwwwww vvvvvvvvvv ")
	if forms > plain {
		t.Errorf("repeating form words 18 more times costs %v more allocations, words nothing reads %v: want no more", forms, plain)
	}
}
