//go:build benchprof

package cli

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strconv"
	"syscall"
)

// A build with the benchprof tag profiles itself for the call benchmark when
// MCP_BRIDGE_BENCHPROF names a file prefix: SIGUSR1 starts a CPU profile
// (<prefix>.<pid>.cpu) and notes the allocation counters (then <prefix>.<pid>.started
// exists), SIGUSR2 stops the profile and
// writes what was allocated in between to <prefix>.<pid>.mem as
// "mallocs=N bytes=N gcs=N". With MCP_BRIDGE_BENCHPROF_ALLOCS=1 every allocation is
// sampled and heap profiles are written at both signals (<prefix>.<pid>.heap0, .heap1:
// `go tool pprof -sample_index=alloc_objects -diff_base heap0 heap1` lists the loop's
// allocations by site); that slows the bridge, so timings of such a run mean nothing.
// Release builds contain none of this.
func init() {
	prefix := os.Getenv("MCP_BRIDGE_BENCHPROF")
	if prefix == "" || len(os.Args) > 1 {
		return
	}
	base := prefix + "." + strconv.Itoa(os.Getpid())
	allocs := os.Getenv("MCP_BRIDGE_BENCHPROF_ALLOCS") == "1"
	if allocs {
		runtime.MemProfileRate = 1
	}
	heap := func(name string) {
		if f, err := os.Create(base + name); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			_ = f.Close()
		}
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGUSR2)
	go func() {
		var start runtime.MemStats
		var cpu *os.File
		for s := range sigs {
			switch s {
			case syscall.SIGUSR1:
				if f, err := os.Create(base + ".cpu"); err == nil && pprof.StartCPUProfile(f) == nil {
					cpu = f
				}
				if allocs {
					heap(".heap0")
				}
				runtime.ReadMemStats(&start)
				_ = os.WriteFile(base+".started", nil, 0o600)
			case syscall.SIGUSR2:
				var end runtime.MemStats
				runtime.ReadMemStats(&end)
				if allocs {
					heap(".heap1")
				}
				if cpu != nil {
					pprof.StopCPUProfile()
					_ = cpu.Close()
					cpu = nil
				}
				line := fmt.Sprintf("mallocs=%d bytes=%d gcs=%d\n", end.Mallocs-start.Mallocs,
					end.TotalAlloc-start.TotalAlloc, end.NumGC-start.NumGC)
				_ = os.WriteFile(base+".mem", []byte(line), 0o600)
			}
		}
	}()
}
