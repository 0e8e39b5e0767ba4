package search_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// catalogFile is the part of a catalog fixture these checks read.
type catalogFile struct {
	Servers []struct {
		Name    string `json:"name"`
		Package string `json:"package"`
		Version string `json:"version"`
		Tools   []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	} `json:"servers"`
}

func readCatalog(t *testing.T, path string) catalogFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read catalog fixture: %v", err)
	}
	var c catalogFile
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s is not a catalog: %v", path, err)
	}
	return c
}

// readCatalog2 is the second catalog, its parts read as one.
func readCatalog2(t *testing.T) catalogFile {
	t.Helper()
	var all catalogFile
	for _, p := range testutil.Catalog2Paths(t) {
		all.Servers = append(all.Servers, readCatalog(t, p).Servers...)
	}
	return all
}

// scriptOf names the script of a letter, or "" for one of no interest here.
func scriptOf(r rune) string {
	switch {
	case unicode.In(r, unicode.Hiragana, unicode.Katakana):
		return "kana"
	case unicode.Is(unicode.Han, r):
		return "han"
	case unicode.Is(unicode.Hangul, r):
		return "hangul"
	case unicode.Is(unicode.Cyrillic, r):
		return "cyrillic"
	case unicode.Is(unicode.Latin, r):
		return "latin"
	}
	return ""
}

// mainScript says which script a server's tool descriptions are mostly in.
// Latin letters are counted per word, not per letter, so that a run of
// Han, where one character is about one word, is not outweighed by the
// English identifiers and product names around it.
func mainScript(descs []string) string {
	counts := map[string]int{}
	for _, d := range descs {
		inLatinWord := false
		for _, r := range d {
			s := scriptOf(r)
			if s == "latin" {
				if !inLatinWord {
					counts["latin"]++
				}
				inLatinWord = true
				continue
			}
			inLatinWord = false
			if s != "" {
				counts[s]++
			}
		}
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return ""
	}
	// Japanese is written in Kana and Han together; a fair share of Kana is
	// what tells it from Chinese.
	if counts["kana"]*5 >= counts["kana"]+counts["han"] && (counts["kana"]+counts["han"])*2 > total {
		return "kana"
	}
	for _, s := range []string{"han", "hangul", "cyrillic", "latin"} {
		if counts[s]*2 > total {
			return s
		}
	}
	return ""
}

func TestSecondCatalog(t *testing.T) {
	first := readCatalog(t, testutil.CatalogPath(t))
	second := readCatalog2(t)

	if n := len(second.Servers); n < 60 {
		t.Errorf("second catalog has %d servers, want at least 60", n)
	}
	firstPkgs := map[string]bool{}
	total := 0
	for _, s := range first.Servers {
		firstPkgs[s.Package] = true
		total += len(s.Tools)
	}
	seen := map[string]bool{}
	scripts := map[string][]string{}
	for _, s := range second.Servers {
		if s.Package == "" || s.Version == "" {
			t.Errorf("server %q: no package or version", s.Name)
		}
		if firstPkgs[s.Package] {
			t.Errorf("%s is already in the first catalog", s.Package)
		}
		if seen[s.Package] {
			t.Errorf("%s is in the second catalog twice", s.Package)
		}
		seen[s.Package] = true
		if len(s.Tools) == 0 {
			t.Errorf("%s: no tools", s.Package)
		}
		total += len(s.Tools)
		var descs []string
		for _, tool := range s.Tools {
			if tool.Name == "" {
				t.Errorf("%s: a tool without a name", s.Package)
			}
			var schema struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema.Type != "object" {
				t.Errorf("%s/%s: input schema is not an object schema: %s", s.Package, tool.Name, tool.InputSchema)
			}
			descs = append(descs, tool.Description)
		}
		sc := mainScript(descs)
		scripts[sc] = append(scripts[sc], s.Package)
	}
	if total < 2000 {
		t.Errorf("both catalogs hold %d tools, want at least 2000", total)
	}
	// Only scripts some server of the catalog is written in: no npm server
	// found for the catalog had descriptions mostly in Hangul or Cyrillic
	// (see testdata/mcp-catalog2/README.md).
	for _, sc := range []string{"han", "kana"} {
		if len(scripts[sc]) == 0 {
			t.Errorf("no server of the second catalog has tool descriptions mostly in %s", sc)
		} else {
			t.Logf("%s: %s", sc, strings.Join(scripts[sc], ", "))
		}
	}

}

func TestMainScript(t *testing.T) {
	for _, c := range []struct {
		name  string
		descs []string
		want  string
	}{
		{"english", []string{"Get the weather for a city"}, "latin"},
		{"chinese with identifiers", []string{"获取 A 股 / 指数全量行情（腾讯）：最新价、涨跌幅"}, "han"},
		{"japanese", []string{"自分のタスク一覧を最大100件まで取得します。"}, "kana"},
		{"korean", []string{"네이버 검색 API로 블로그를 검색합니다"}, "hangul"},
		{"russian", []string{"Получить список задач в очереди"}, "cyrillic"},
		{"english around a few han", []string{"Search the AMap POI database for restaurants near a place (餐厅)"}, "latin"},
		{"nothing to read", []string{""}, ""},
	} {
		if got := mainScript(c.descs); got != c.want {
			t.Errorf("%s: mainScript = %q, want %q", c.name, got, c.want)
		}
	}
}
