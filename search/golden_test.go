package search_test

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/search"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/rankings.golden.gz from the current ranking")

// goldenPath holds the recorded rankings, gzipped: in plain text they are
// megabytes that only a test reads.
const goldenPath = "testdata/rankings.golden.gz"

// goldenDepth is how deep every query is ranked: the quality tests' cut-off.
const goldenDepth = 10

// TestGoldenRankings records the full ranking (tool ID, score to 12 digits, exact
// hit or not) of every query of every set the quality tests run, over every
// catalog they run it on, and fails when any differs from the recorded one:
// a change meant to leave the ranking as it is (a refactor, a speed-up)
// proves it here. A change meant to move the ranking rewrites the record
// (go test ./search -run TestGoldenRankings -update-golden) and shows its
// effect in the quality tests' figures.
//
// A mismatch names the set, the catalog and the query's position, never its
// text or ranking, so that the report halves stay unread.
func TestGoldenRankings(t *testing.T) {
	t.Parallel()
	got := goldenRankings(t)
	if *updateGolden {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		if _, err := zw.Write(got); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenPath, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %d bytes of rankings in %s", len(got), goldenPath)
		return
	}
	f, err := os.Open(goldenPath)
	if err != nil {
		t.Fatalf("%v (record the rankings with -update-golden)", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", goldenPath, err)
	}
	want, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", goldenPath, err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gotQ, wantQ := goldenQueries(got), goldenQueries(want)
	if len(gotQ) != len(wantQ) {
		t.Errorf("%d rankings, %s holds %d", len(gotQ), goldenPath, len(wantQ))
	}
	differ := 0
	for i := range min(len(gotQ), len(wantQ)) {
		if gotQ[i] == wantQ[i] {
			continue
		}
		if differ < 20 {
			key, _, _ := strings.Cut(gotQ[i], "\n")
			wkey, _, _ := strings.Cut(wantQ[i], "\n")
			if key != wkey {
				t.Errorf("ranking %d is %s, %s holds %s there", i, key, goldenPath, wkey)
			} else {
				t.Errorf("%s ranks otherwise than recorded", key)
			}
		}
		differ++
	}
	t.Errorf("%d rankings differ from %s", differ, goldenPath)
}

// goldenQueries splits a record into one block per query.
func goldenQueries(b []byte) []string {
	blocks := strings.Split(string(b), "\n# ")
	return blocks
}

// goldenRankings ranks every query of tuning.json and report.json over the
// first catalog (as TestQuality does) and of both union halves over the
// first catalog, the second and both together (as TestUnionQuality does),
// and formats them: per query a "# set catalog position" line, then one
// line per hit: rank, ID, the score to 12 significant digits, and "exact" for
// a hit by name. Not the exact float64: fused multiply-add (arm64 and others)
// moves its last bits, and the record must hold on every architecture.
func goldenRankings(t *testing.T) []byte {
	t.Helper()
	first, second, union := unionCatalogs(t)
	var b bytes.Buffer
	rank := func(set, catalog string, docs []search.Doc, ix *search.Index, queries []string) {
		for i, q := range queries {
			fmt.Fprintf(&b, "# %s %s %d\n", set, catalog, i)
			for r, h := range ix.Search(q, goldenDepth) {
				b.WriteString(strconv.Itoa(r + 1))
				b.WriteByte(' ')
				b.WriteString(docs[h.Doc].ID)
				b.WriteByte(' ')
				b.WriteString(strconv.FormatFloat(h.Score, 'g', 12, 64))
				if h.Exact {
					b.WriteString(" exact")
				}
				b.WriteByte('\n')
			}
		}
	}
	firstIx := search.New(first.docs)
	for _, file := range []string{"tuning.json", "report.json"} {
		qs, err := search.LoadQueries(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		texts := make([]string, len(qs))
		for i, q := range qs {
			texts[i] = q.Q
		}
		rank(file, "first", first.docs, firstIx, texts)
	}
	catalogs := []struct {
		name string
		cat  unionCatalog
		ix   *search.Index
	}{{"first", first, firstIx}, {"second", second, nil}, {"union", union, nil}}
	for _, c := range catalogs {
		ix := c.ix
		if ix == nil {
			ix = search.New(c.cat.docs)
		}
		for _, file := range unionSets {
			qs := loadUnionQueries(t, file)
			texts := make([]string, len(qs))
			for i, q := range qs {
				texts[i] = q.Q
			}
			rank(file, c.name, c.cat.docs, ix, texts)
		}
	}
	return b.Bytes()
}
