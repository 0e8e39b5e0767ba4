package query

import (
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/search/words"
)

// lookup is one of the query tables as the tests read it: its map, as the
// lexicon was read, beside the table made of it.
type lookup struct {
	name     string
	want     map[string][]any
	get      func(string) []any
	getBytes func([]byte) []any
	has      func(string) bool
	len      int
	keys     []string
}

func lookupOf[V comparable](name string, m map[string][]V, t *table[V]) lookup {
	anys := func(l []V) []any {
		if l == nil {
			return nil
		}
		out := make([]any, len(l))
		for i, v := range l {
			out[i] = v
		}
		return out
	}
	want := map[string][]any{}
	for k, l := range m {
		want[k] = anys(l)
	}
	var keys []string
	for k, l := range t.all() {
		keys = append(keys, k)
		if !slices.Equal(l, t.get(k)) {
			keys = append(keys, "all() and get disagree on "+k)
		}
	}
	return lookup{
		name:     name,
		want:     want,
		get:      func(k string) []any { return anys(t.get(k)) },
		getBytes: func(k []byte) []any { return anys(t.getBytes(k)) },
		has:      t.has,
		len:      t.len(),
		keys:     keys,
	}
}

// TestTablesAnswerAsTheMaps: every query table gives, for every key, for
// every beginning of a key (by byte and by character), for keys with a
// byte more, and for the empty key, exactly the answer of the map it was
// made of: the same list (nil where the map gives nil) and the same
// presence.
func TestTablesAnswerAsTheMaps(t *testing.T) {
	t.Parallel()
	// The same maps: a map's list can come in another order from another
	// reading, as the lexicon's maps are ranged over.
	m := readTables()
	tb := compactTables(m)
	for _, lk := range []lookup{
		lookupOf("intents", m.intents, &tb.intents),
		lookupOf("expansions", m.expansions, &tb.expansions),
		lookupOf("exact", m.concepts.exact, &tb.concepts.exact),
		lookupOf("stems", m.concepts.stems, &tb.concepts.stems),
		lookupOf("phrases", m.concepts.phrases, &tb.concepts.phrases),
		lookupOf("notStem", m.concepts.notStem, &tb.concepts.notStem),
	} {
		t.Run(lk.name, func(t *testing.T) {
			if len(lk.want) == 0 {
				t.Fatalf("the map is empty: nothing is compared")
			}
			if lk.len != len(lk.want) {
				t.Errorf("len() = %d, the map has %d keys", lk.len, len(lk.want))
			}
			if want := slices.Sorted(maps.Keys(lk.want)); !slices.Equal(slices.Sorted(slices.Values(lk.keys)), want) {
				t.Errorf("all() yields %d keys, not the map's %d", len(lk.keys), len(want))
			}
			probes := []string{"", "\x00", "\xff", "zzzzzzzz", "=", "*", latinMark + "zz", "zz" + stemMark}
			for k := range lk.want {
				probes = append(probes, k, k+"\x00", k+"a", k+stemMark, latinMark+k, strings.ToUpper(k))
				for i := 1; i < len(k); i++ {
					probes = append(probes, k[:i])
					if utf8.RuneStart(k[i]) {
						probes = append(probes, k[i:])
					}
				}
			}
			bad := 0
			for _, k := range probes {
				want, present := lk.want[k]
				got, gotBytes := lk.get(k), lk.getBytes([]byte(k))
				if !slices.Equal(got, want) || (got == nil) != (want == nil) || !slices.Equal(gotBytes, want) || (gotBytes == nil) != (want == nil) || lk.has(k) != present {
					if bad++; bad <= 10 {
						t.Errorf("%q: get %v, getBytes %v, has %v; the map gives %v, present %v", k, got, gotBytes, lk.has(k), want, present)
					}
				}
			}
			if bad > 10 {
				t.Errorf("and %d more keys", bad-10)
			}
		})
	}
	for name, text := range map[string]string{"exact": tb.concepts.exact.text, "stems": tb.concepts.stems.text, "phrases": tb.concepts.phrases.text} {
		if len(text) != len(tb.intents.text) {
			t.Errorf("the %s table holds %d bytes of keys of its own, want none (its keys are the intents')", name, len(text)-len(tb.intents.text))
		}
	}
	if tb.concepts.maxWords != m.concepts.maxWords {
		t.Errorf("maxWords = %d, want %d", tb.concepts.maxWords, m.concepts.maxWords)
	}
}

// TestTableListsAreClipped: a list from a table cannot be appended to in
// place, so a caller's append never writes over the next key's list.
func TestTableListsAreClipped(t *testing.T) {
	t.Parallel()
	b := newTableBuilder[string]()
	tab := b.table(map[string][]string{"a": {"x"}, "b": {"y", "z"}}, "", nil)
	b.finish(&tab)
	a := tab.get("a")
	_ = append(a, "w")
	if got := tab.get("b"); !slices.Equal(got, []string{"y", "z"}) {
		t.Errorf("after an append to a's list, b's list is %v", got)
	}
	if cap(a) != len(a) {
		t.Errorf("cap(get(a)) = %d, want its length %d", cap(a), len(a))
	}
}

// TestTableLookupAllocatesNothing: a lookup, found or not, by string or by
// bytes of any length, allocates nothing.
func TestTableLookupAllocatesNothing(t *testing.T) {
	tb := lexiconTables()
	long := []byte(strings.Repeat("долгое слово ", 8))
	longKey := string(long)
	tests := []struct {
		name string
		f    func()
	}{
		{"get", func() { tb.intents.get("hour") }},
		{"get absent", func() { tb.intents.get(longKey) }},
		{"getBytes", func() { tb.intents.getBytes([]byte("hour")) }},
		{"getBytes long", func() { tb.intents.getBytes(long) }},
		{"has", func() { tb.concepts.stems.has(longKey) }},
		{"expansions", func() { tb.expansions.getBytes(long) }},
	}
	for _, tt := range tests {
		if n := testing.AllocsPerRun(100, tt.f); n != 0 {
			t.Errorf("%s allocates %v times, want 0", tt.name, n)
		}
	}
}

// maxTablesHeap is the most heap the query tables may keep: they stay for
// the life of the process, at any catalog size.
const maxTablesHeap = 400 << 10

// TestQueryTablesRetainLittle: the query tables, once built, keep little
// heap. Not parallel: it reads the heap's size before and after.
func TestQueryTablesRetainLittle(t *testing.T) {
	retained := func(build func() any) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v := build()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(v)
		return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
	}
	got := retained(func() any { return compactTables(readTables()) })
	maps := retained(func() any { return readTables() })
	t.Logf("the tables keep %d bytes, the maps they are made of %d", got, maps)
	if got > maxTablesHeap {
		t.Errorf("the query tables keep %d bytes of heap, want at most %d", got, maxTablesHeap)
	}
}

// BenchmarkAnalyseRequests times the analysis of short requests in the
// lexicon's languages, each of which reads the query tables many times.
func BenchmarkAnalyseRequests(b *testing.B) {
	requests := []string{
		"find coffee shops within 500 meters of my location",
		"what's new in my inbox since yesterday",
		"delete the old branches of the repo",
		"lösche alle alten Dateien im Ordner",
		"busca los archivos que cambiaron hoy",
		"envoyez un message à l'équipe",
		"удалить виртуальную машину",
		"昨日のメールを検索して",
		"查找最近的提交记录",
		"show me the weather forecast for tomorrow in Berlin",
	}
	vocab := map[string]int32{}
	for i, w := range strings.Fields("file folder delete remove search find message send email mail branch repo weather forecast commit virtual machine coffee shop location inbox") {
		vocab[w] = int32(i)
	}
	Prepare()
	var a Analyser
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range requests {
			a.Analyse(q, vocab, nil)
		}
	}
}

// TestTableKeepsOddValues: a value not equal to itself (a NaN weight) comes back as it
// went in; the builder once looked each value up a second time, and a NaN then found
// another value's place.
func TestTableKeepsOddValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		list []words.Expansion
	}{
		{"NaN after a number", []words.Expansion{{Term: "a", Weight: 0.9}, {Term: "b", Weight: math.NaN()}}},
		{"NaN first", []words.Expansion{{Term: "b", Weight: math.NaN()}, {Term: "a", Weight: 0.9}}},
	}
	for _, tt := range tests {
		b := newTableBuilder[words.Expansion]()
		tb := b.table(map[string][]words.Expansion{"k": tt.list}, "", nil)
		b.finish(&tb)
		got := tb.get("k")
		if len(got) != len(tt.list) {
			t.Fatalf("%s: got %v, want %v", tt.name, got, tt.list)
		}
		for i, w := range tt.list {
			g := got[i]
			if g.Term != w.Term || math.Float64bits(g.Weight) != math.Float64bits(w.Weight) && !(math.IsNaN(g.Weight) && math.IsNaN(w.Weight)) {
				t.Errorf("%s: value %d is %+v, want %+v", tt.name, i, g, w)
			}
		}
	}
}
