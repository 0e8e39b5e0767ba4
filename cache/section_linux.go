package cache

import (
	"os"
	"syscall"
)

// readSection maps n bytes at off of f, read-only, with every page mapped up front
// (MAP_POPULATE: the file was just written, so its pages are in the page cache, and one
// call maps them all instead of one fault per few pages). release unmaps them.
func readSection(f *os.File, off, n int64) ([]byte, func(), error) {
	if n == 0 {
		return []byte{}, func() {}, nil
	}
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	m, err := syscall.Mmap(int(f.Fd()), start, int(off-start+n), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		return readAtSection(f, off, n)
	}
	return m[off-start:], func() { _ = syscall.Munmap(m) }, nil
}
