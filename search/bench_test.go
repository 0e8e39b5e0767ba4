package search

import (
	"testing"
)

// benchQueries are task phrasings exercised by BenchmarkSearch.
var benchQueries = []string{
	"create a github issue about the login bug",
	"take a screenshot of the page",
	"list pods in the default namespace",
	"what did I change since the last commit",
	"open an MR from feature into main",
	"find documents in a mongo collection",
	"search the web for the latest news",
	"read the file config.yaml",
}

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
