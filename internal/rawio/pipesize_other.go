//go:build !linux

package rawio

import "os"

// GrowPipe does nothing where F_SETPIPE_SZ does not exist.
func GrowPipe(f *os.File, n int) bool { return false }
