package search

import (
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// benchQueries are task phrasings exercised by BenchmarkSearch.
var benchQueries = testutil.TypicalQueries()

func BenchmarkIndexBuild(b *testing.B) {
	base := loadCatalog(b)
	for _, n := range []int{1000, 10000} {
		docs := replicate(base, n)
		b.Run(itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				New(docs)
			}
		})
	}
}

func BenchmarkSearch(b *testing.B) {
	base := loadCatalog(b)
	for _, n := range []int{1000, 10000} {
		ix := New(replicate(base, n))
		b.Run(itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				ix.Search(benchQueries[i%len(benchQueries)], DefaultLimit)
				i++
			}
		})
	}
}

func BenchmarkBaseline(b *testing.B) {
	base := loadCatalog(b)
	docs := replicate(base, 10000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		Baseline(docs, benchQueries[i%len(benchQueries)], DefaultLimit)
		i++
	}
}
