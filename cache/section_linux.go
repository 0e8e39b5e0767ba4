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

// readPrivate maps the first n bytes of f as readSection does, privately: writable
// (mprotect) makes the pages writable, a write copying its page and never reaching the
// file. Mapping them writable up front would copy every page as it is populated.
// release unmaps them.
func readPrivate(f *os.File, n int64) (data []byte, writable func() error, release func(), err error) {
	if n == 0 {
		return []byte{}, func() error { return nil }, func() {}, nil
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(n), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		data, release, err := readAtSection(f, 0, n)
		return data, func() error { return nil }, release, err
	}
	return m, func() error { return syscall.Mprotect(m, syscall.PROT_READ|syscall.PROT_WRITE) }, func() { _ = syscall.Munmap(m) }, nil
}
