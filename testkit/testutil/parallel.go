package testutil

import (
	"flag"
	"runtime"
	"strconv"
)

// WaitingParallelism is how many parallel tests a package whose tests mostly wait runs per
// CPU (see RaiseParallel).
const WaitingParallelism = 4

// RaiseParallel sets go test's -parallel to perCPU×GOMAXPROCS unless it was given on the
// command line. It is for packages whose tests spend their time waiting on spawned servers,
// HTTP round trips and a host's replies rather than computing: at the default of GOMAXPROCS,
// a 2-core machine runs two of them at a time and its CPUs sit idle. Call it from TestMain
// before m.Run.
func RaiseParallel(perCPU int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if given {
		return
	}
	// The flag exists whenever the testing package is linked in, which is the only place
	// this is called from; a failure would only leave the default in place.
	_ = flag.Set("test.parallel", strconv.Itoa(perCPU*runtime.GOMAXPROCS(0)))
}
