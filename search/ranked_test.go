//go:build rankcheck

package search

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRankedUnchanged guards work on search speed: it records the ranked
// results (IDs and exact score bits) of every query of both halves, at the
// catalog's size and replicated to 1,000 and 10,000 tools, into the file
// named by SEARCH_RANKED when that file does not exist, and compares with
// it when it does. Run it on the tree before a change to record, and after
// to compare. Only a digest per query is kept and a mismatch names the
// query's position, never its text, so that the report half stays unread.
// It is a tool, not part of the suite (build tag rankcheck): the recorded
// ranking belongs to one tree, and ranking changes are meant to move it.
//
//	SEARCH_RANKED=/tmp/ranked.txt go test -tags rankcheck -run TestRankedUnchanged ./search
func TestRankedUnchanged(t *testing.T) {
	path := os.Getenv("SEARCH_RANKED")
	if path == "" {
		t.Fatal("SEARCH_RANKED names the file to record the ranking in or compare it with")
	}
	got := rankedDigests(t)
	want, err := readDigests(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := writeDigests(path, got); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %d rankings in %s", len(got), path)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rankings, %s holds %d", len(got), path, len(want))
	}
	differ := map[string]int{}
	first := map[string]string{}
	for i := range got {
		if got[i].key != want[i].key {
			t.Fatalf("ranking %d is %s, %s holds %s there", i, got[i].key, path, want[i].key)
		}
		if got[i].sum != want[i].sum {
			group := got[i].key[:strings.LastIndexByte(got[i].key, '/')]
			differ[group]++
			if _, ok := first[group]; !ok {
				first[group] = got[i].key
			}
		}
	}
	for group, n := range differ {
		t.Errorf("%s: %d rankings differ from %s, the first %s", group, n, path, first[group])
	}
}

// rankedDigest is the digest of one query's ranking under a key naming the
// half, the index size, the limit and the query's position.
type rankedDigest struct{ key, sum string }

func rankedDigests(t *testing.T) []rankedDigest {
	base := loadCatalog(t)
	var out []rankedDigest
	for _, n := range []int{len(base), 1000, 10000} {
		docs := replicate(base, n)
		ix := New(docs)
		for _, file := range []string{"tuning.json", "report.json"} {
			queries, err := LoadQueries(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			for _, limit := range []int{DefaultLimit, evalDepth} {
				for i, q := range queries {
					h := sha256.New()
					var b [8]byte
					for _, hit := range ix.Search(q.Q, limit) {
						h.Write([]byte(docs[hit.Doc].ID))
						binary.LittleEndian.PutUint64(b[:], math.Float64bits(hit.Score))
						h.Write(b[:])
						if hit.Exact {
							h.Write([]byte{1})
						}
						h.Write([]byte{0})
					}
					key := fmt.Sprintf("%s/n=%d/limit=%d/%d", file, n, limit, i)
					out = append(out, rankedDigest{key, hex.EncodeToString(h.Sum(nil))})
				}
			}
		}
	}
	return out
}

func readDigests(path string) ([]rankedDigest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []rankedDigest
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, sum, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			return nil, fmt.Errorf("%s: line %d is not \"key digest\"", path, len(out)+1)
		}
		out = append(out, rankedDigest{key, sum})
	}
	return out, sc.Err()
}

func writeDigests(path string, ds []rankedDigest) error {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.key + " " + d.sum + "\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
