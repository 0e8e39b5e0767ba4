//go:build !linux

package cache

import "os"

// readSection reads n bytes at off of f (see section_linux.go).
func readSection(f *os.File, off, n int64) ([]byte, func(), error) {
	return readAtSection(f, off, n)
}

// readPrivate reads the first n bytes of f into a new buffer, writable already (see
// section_linux.go).
func readPrivate(f *os.File, n int64) (data []byte, writable func() error, release func(), err error) {
	data, release, err = readAtSection(f, 0, n)
	return data, func() error { return nil }, release, err
}
