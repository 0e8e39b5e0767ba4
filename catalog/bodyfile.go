package catalog

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"os"
	"runtime"
	"sync"
)

// Packed blocks are read only when a tool is described, validated or indexed, yet held on
// the heap they are the largest part of an idle bridge. So the owner writes each block to
// a file of its own and keeps only where it lies: the file is created in the given
// directory and removed at once, so nothing else can open it and it goes with the
// process; its pages are the kernel's page cache, which the system can drop, not the
// bridge's memory. A block read back is checked against the checksum kept beside its
// place. Where the file cannot be made or written (a read-only directory, a system that
// cannot remove an open file), blocks stay on the heap as before.

// castagnoli is the table of the blocks' checksums.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// bodyFile is the owner's file of packed blocks. Blocks are only ever appended; a block
// the garbage collector takes gives its bytes back to the file system (punchHole).
type bodyFile struct {
	dir    string
	mu     sync.Mutex // held while a block is appended
	f      *os.File   // nil until the first block's file is made; kept after a failed write, as earlier blocks read from it
	end    int64
	failed bool // the file could not be made or written: keep blocks on the heap
}

// blockSpan is where a block's bytes are in its file.
type blockSpan struct {
	f   *os.File
	at  int64
	n   uint32
	sum uint32 // crc32 (Castagnoli) of the bytes
}

// store writes packed to the file and returns where it is; ok false leaves the block
// on the heap.
func (s *bodyFile) store(packed []byte) (blockSpan, bool) {
	if s == nil || len(packed) == 0 || len(packed) > 1<<31 {
		return blockSpan{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed || s.dir == "" {
		return blockSpan{}, false
	}
	if s.f == nil {
		f, err := os.CreateTemp(s.dir, ".mcp-bridge-tools-*")
		if err != nil {
			// The directory may come later (the cache's is made by its first write): a
			// later pack tries again.
			return blockSpan{}, false
		}
		// Removed while open: nothing else reaches it and it goes with the process. Where an
		// open file cannot be removed (Windows), the blocks stay on the heap.
		if err := os.Remove(f.Name()); err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
			s.failed = true
			return blockSpan{}, false
		}
		s.f = f
	}
	if _, err := s.f.WriteAt(packed, s.end); err != nil {
		// Blocks written before stay readable where they are; the next ones stay on the heap.
		s.failed = true
		return blockSpan{}, false
	}
	sp := blockSpan{f: s.f, at: s.end, n: uint32(len(packed)), sum: crc32.Checksum(packed, castagnoli)}
	s.end += int64(len(packed))
	return sp, true
}

// read returns the block's bytes, read into a fresh buffer and checked.
func (sp blockSpan) read() ([]byte, error) {
	b := make([]byte, sp.n)
	if _, err := sp.f.ReadAt(b, sp.at); err != nil {
		return nil, fmt.Errorf("reading a block of tool descriptions back from the bridge's own file: %w", err)
	}
	if crc32.Checksum(b, castagnoli) != sp.sum {
		return nil, fmt.Errorf("a block of tool descriptions read back from the bridge's own file is damaged (checksum mismatch at %d+%d)", sp.at, sp.n)
	}
	return b, nil
}

// block returns the block of packed (which the caller may reuse): kept in the file if it
// can be, its space given back once no catalog holds the block; else a copy on the heap
// (inFile false).
func (s *bodyFile) block(packed []byte) (blk *bodyBlock, inFile bool) {
	sp, ok := s.store(packed)
	if !ok {
		return &bodyBlock{packed: bytes.Clone(packed)}, false
	}
	blk = &bodyBlock{span: sp}
	runtime.AddCleanup(blk, func(sp blockSpan) { punchHole(sp.f, sp.at, int64(sp.n)) }, sp)
	return blk, true
}

// setDir makes dir where later blocks are kept ("" keeps them on the heap).
func (s *bodyFile) setDir(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dir = dir
}
