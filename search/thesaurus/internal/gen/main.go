// Command gen derives the thesaurus table (search/thesaurus/thesaurus.txt)
// from the database files of WordNet 3.0. It is run by hand when the
// derivation changes; nothing builds or tests the project with it:
//
//	go run ./search/thesaurus/internal/gen -wordnet /usr/share/wordnet -out search/thesaurus/thesaurus.txt
//
// The database comes with Debian's wordnet-base package (apt-get download
// wordnet-base && dpkg -x wordnet-base_*.deb root; the files are then in
// root/usr/share/wordnet). See search/thesaurus/README.md for what is kept
// and why.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/zot-mcp/mcp-bridge/search/thesaurus"
)

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "directory holding WordNet 3.0's index.*, data.*, cntlist.rev and *.exc")
	out := flag.String("out", "thesaurus.txt", "file to write")
	var o options
	flag.IntVar(&o.minCount, "mincount", 1, "least tagged count of a common sense")
	flag.Float64Var(&o.minShare, "minshare", 0.25, "least share of the count of the word's most frequent sense (in any part of speech) of a common sense")
	flag.IntVar(&o.maxSenses, "maxsenses", 3, "most common senses per word and part of speech")
	flag.Parse()
	t, err := build(*dir, o)
	if err != nil {
		log.Fatalf("gen: %v (is -wordnet the directory of WordNet 3.0's database files?)", err)
	}
	if err := os.WriteFile(*out, t, 0o644); err != nil {
		log.Fatalf("gen: write the table: %v", err)
	}
}

// options bound which senses of a word count as common.
type options struct {
	minCount  int
	minShare  float64
	maxSenses int
}

// parts of speech: the file suffix and the ss_type digit of sense keys.
var parts = []struct {
	file string
	code byte
}{
	{"noun", '1'}, {"verb", '2'}, {"adj", '3'}, {"adv", '4'},
}

// synsetWords returns the words of the synset at byte offset off of a
// data.* file, lower case, adjective markers removed.
func synsetWords(data []byte, off int) ([]string, error) {
	if off < 0 || off >= len(data) {
		return nil, fmt.Errorf("synset offset %d out of range", off)
	}
	line := data[off:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(string(line))
	if len(f) < 4 || f[0] != fmt.Sprintf("%08d", off) {
		return nil, fmt.Errorf("no synset at offset %d", off)
	}
	n, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil || len(f) < 4+2*int(n) {
		return nil, fmt.Errorf("synset %d: bad word count %q", off, f[3])
	}
	words := make([]string, 0, n)
	for i := range int(n) {
		w := f[4+2*i]
		if p := strings.IndexByte(w, '('); p > 0 {
			w = w[:p] // adjective position marker: long(a)
		}
		words = append(words, strings.ToLower(w))
	}
	return words, nil
}

// senseCounts reads cntlist.rev into "lemma code sense_number" → tagged
// count, satellites counted with the adjectives.
func senseCounts(dir string) (map[string]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cntlist.rev"))
	if err != nil {
		return nil, err
	}
	m := map[string]int{}
	for line := range strings.SplitSeq(string(b), "\n") {
		fs := strings.Fields(line)
		if len(fs) != 3 {
			continue
		}
		lemma, rest, ok := strings.Cut(fs[0], "%")
		if !ok || rest == "" {
			continue
		}
		code := rest[0]
		if code == '5' {
			code = '3'
		}
		n, err := strconv.Atoi(fs[2])
		if err != nil {
			return nil, fmt.Errorf("cntlist.rev: %q: %v", line, err)
		}
		m[lemma+" "+string(code)+" "+fs[1]] += n
	}
	return m, nil
}

// build returns the table: one line per key, sorted, "key\tbase forms\tsynonyms".
func build(dir string, o options) ([]byte, error) {
	counts, err := senseCounts(dir)
	if err != nil {
		return nil, err
	}
	top := map[string]int{} // lemma → count of its most frequent sense in any part of speech
	for k, c := range counts {
		w, _, _ := strings.Cut(k, " ")
		top[w] = max(top[w], c)
	}
	// Synonyms of each word's common senses.
	syn := map[string][]string{}
	for _, p := range parts {
		data, err := os.ReadFile(filepath.Join(dir, "data."+p.file))
		if err != nil {
			return nil, err
		}
		idx, err := os.ReadFile(filepath.Join(dir, "index."+p.file))
		if err != nil {
			return nil, err
		}
		for line := range strings.SplitSeq(string(idx), "\n") {
			if line == "" || line[0] == ' ' {
				continue // the licence at the head of the file
			}
			f := strings.Fields(line)
			key := f[0]
			if !thesaurus.PlainWord(key) || len(f) < 4 {
				continue
			}
			nsyn, err1 := strconv.Atoi(f[2])
			nptr, err2 := strconv.Atoi(f[3])
			if err1 != nil || err2 != nil || 4+nptr+2+nsyn != len(f) {
				return nil, fmt.Errorf("index.%s: malformed line for %q", p.file, key)
			}
			for i, o2 := range f[len(f)-nsyn:] {
				c := counts[key+" "+string(p.code)+" "+strconv.Itoa(i+1)]
				if i >= o.maxSenses || c < o.minCount || float64(c) < o.minShare*float64(top[key]) {
					continue
				}
				off, _ := strconv.Atoi(o2)
				words, err := synsetWords(data, off)
				if err != nil {
					return nil, fmt.Errorf("data.%s: %v", p.file, err)
				}
				if syn[key] == nil {
					syn[key] = []string{} // a key with a common sense, synonyms or not
				}
				for _, w := range words {
					if thesaurus.PlainWord(w) && w != key && !slices.Contains(syn[key], w) {
						syn[key] = append(syn[key], w)
					}
				}
			}
		}
	}
	// A synonym stays only when the sense it shares with the key is common
	// for it too: "tower" is a column only in a rare sense of "column".
	mutual := map[string][]string{}
	for k, ws := range syn {
		mutual[k] = slices.DeleteFunc(slices.Clone(ws), func(w string) bool { return !slices.Contains(syn[w], k) })
	}
	// Irregular forms name their base forms when those are keys.
	base := map[string][]string{}
	for _, p := range parts {
		exc, err := os.ReadFile(filepath.Join(dir, p.file+".exc"))
		if err != nil {
			return nil, err
		}
		for line := range strings.SplitSeq(string(exc), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || !thesaurus.PlainWord(f[0]) {
				continue
			}
			for _, b := range f[1:] {
				if _, ok := syn[b]; ok && b != f[0] && !slices.Contains(base[f[0]], b) {
					base[f[0]] = append(base[f[0]], b)
				}
			}
		}
	}
	keys := make([]string, 0, len(mutual)+len(base))
	for k, ws := range mutual {
		if len(ws) > 0 {
			keys = append(keys, k)
		}
	}
	for k := range base {
		if len(mutual[k]) == 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b bytes.Buffer
	for _, k := range keys {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", k, strings.Join(base[k], " "), strings.Join(mutual[k], " "))
	}
	return b.Bytes(), nil
}
