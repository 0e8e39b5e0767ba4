//go:build !linux

package cache

import "os"

// readSection reads n bytes at off of f (see section_linux.go).
func readSection(f *os.File, off, n int64) ([]byte, func(), error) {
	return readAtSection(f, off, n)
}
