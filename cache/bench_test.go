package cache

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchSizes are the tool counts of the benchmarked cache files. The startup
// target is Read of 2,000 tools in at most 10 ms.
var benchSizes = []int{100, 2000, 10000}

// writeBenchFile writes a cache file of at least n catalog tools and returns
// its path, the cache and the exact tool count.
func writeBenchFile(b *testing.B, n int) (string, *File, int) {
	b.Helper()
	f, total := catalogCache(b, n)
	data, err := encodeFile(f)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), FileName)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	return path, f, total
}

// BenchmarkRead measures Read of cache files built from the real catalog.
func BenchmarkRead(b *testing.B) {
	for _, n := range benchSizes {
		path, f, total := writeBenchFile(b, n)
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			info, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(info.Size())
			b.ReportAllocs()
			for b.Loop() {
				got, err := Read(path)
				if err != nil {
					b.Fatal(err)
				}
				if len(got.Servers) != len(f.Servers) {
					b.Fatalf("read %d servers, want %d", len(got.Servers), len(f.Servers))
				}
			}
			b.ReportMetric(float64(total), "tools")
			b.ReportMetric(float64(info.Size()), "file-bytes")
		})
	}
}

// BenchmarkReadStdlib is BenchmarkRead with encoding/json as the decoder, the
// baseline that made Read use github.com/goccy/go-json.
func BenchmarkReadStdlib(b *testing.B) {
	for _, n := range benchSizes {
		path, f, total := writeBenchFile(b, n)
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			info, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(info.Size())
			b.ReportAllocs()
			for b.Loop() {
				data, err := os.ReadFile(path)
				if err != nil {
					b.Fatal(err)
				}
				var got File
				if err := json.Unmarshal(data, &got); err != nil {
					b.Fatal(err)
				}
				if len(got.Servers) != len(f.Servers) {
					b.Fatalf("read %d servers, want %d", len(got.Servers), len(f.Servers))
				}
			}
			b.ReportMetric(float64(total), "tools")
			b.ReportMetric(float64(info.Size()), "file-bytes")
		})
	}
}
