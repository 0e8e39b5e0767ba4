package catalog

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"sync"
	"weak"

	"github.com/zot-mcp/mcp-bridge/cache"
)

// A tool's title, description and schemas are what grows with the catalog, yet they are
// read only when the tool is described, validated, offered as a proxy example or indexed;
// routing a call needs its names and annotations only. So once a catalog is published,
// these parts are packed: encoded one after another into blocks of about bodyBlockSize,
// each block compressed (schemas of one server repeat the same keys, so a block shrinks
// several times). Reading one tool decompresses its block; the decompressed block is kept
// behind a weak pointer, so a run over many tools (the index build, a listing)
// decompresses each block once and the garbage collector takes it back afterwards.

// bodyBlockSize is the uncompressed size at which a block is closed: large enough to
// compress well, small enough that reading one tool stays cheap.
const bodyBlockSize = 32 << 10

// toolBody is where an entry's bulky parts are: decoded (raw, until the catalog is
// packed) or packed in a block.
type toolBody struct {
	raw *cache.Tool
	blk *bodyBlock
	sum uint64 // schemaSum of the input schema (set when packed)
	// n and off are the tool's bytes in the decompressed block. A tool starts before its
	// block is full, so off fits 16 bits, which leaves room for the entry's registered
	// mark (Tool.Registered) in the struct's 8-byte alignment.
	n          uint32
	off        uint16
	registered bool
}

// A tool's offset in its block is below bodyBlockSize and must fit toolBody.off.
var _ [math.MaxUint16 + 1 - bodyBlockSize]struct{}

// bodyBlock is one compressed block, shared by every catalog that holds its tools: in
// packed, or (packed nil) at span in the owner's file (bodyfile.go).
type bodyBlock struct {
	packed []byte
	span   blockSpan
	mu     sync.Mutex
	plain  weak.Pointer[plainBlock]
}

// plainBlock is a decompressed block.
type plainBlock struct{ b []byte }

// schemaSum identifies a version of a tool's input schema within the process (for the
// validator's cache).
func schemaSum(schema []byte) uint64 {
	h := fnv.New64a()
	_, _ = h.Write(schema)
	return h.Sum64()
}

// InputSum identifies the version of the entry's input schema within the process (the
// validator's cache key beside the tool).
func (e *Tool) InputSum() uint64 { return e.body.inputSum() }

// packed reports whether the body has been packed into a block.
func (t *toolBody) packed() bool { return t.blk != nil }

// inputSum is the schemaSum of the tool's input schema.
func (t *toolBody) inputSum() uint64 {
	if t.raw != nil {
		return schemaSum(t.raw.InputSchema)
	}
	return t.sum
}

// load returns the tool's title, description and schemas (name and annotations are the
// entry's). The result is the caller's: nothing in it aliases a shared buffer.
func (t *toolBody) load() (cache.Tool, error) {
	if t.raw != nil {
		return *t.raw, nil
	}
	if t.blk == nil {
		return cache.Tool{}, nil
	}
	plain, err := t.blk.open()
	if err != nil {
		return cache.Tool{}, err
	}
	if uint64(t.off)+uint64(t.n) > uint64(len(plain)) {
		return cache.Tool{}, fmt.Errorf("packed tool at %d+%d lies outside its block of %d bytes", t.off, t.n, len(plain))
	}
	return decodeBody(plain[uint32(t.off) : uint32(t.off)+t.n])
}

// open returns the decompressed block, decompressing it unless a recent reader left it
// in memory.
func (k *bodyBlock) open() ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if p := k.plain.Value(); p != nil {
		return p.b, nil
	}
	packed := k.packed
	if packed == nil {
		var err error
		if packed, err = k.span.read(); err != nil {
			return nil, err
		}
	}
	r := flate.NewReader(bytes.NewReader(packed))
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("unpacking a block of tool descriptions: %w", err)
	}
	p := &plainBlock{b: b}
	k.plain = weak.Make(p)
	return p.b, nil
}

// appendBody encodes t's title, description and schemas, each as a uvarint length and
// its bytes.
func appendBody(dst []byte, t *cache.Tool) []byte {
	for _, s := range [][]byte{[]byte(t.Title), []byte(t.Description), t.InputSchema, t.OutputSchema} {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	return dst
}

// decodeBody reverses appendBody, copying every part out of src.
func decodeBody(src []byte) (cache.Tool, error) {
	var parts [4][]byte
	for i := range parts {
		n, k := binary.Uvarint(src)
		if k <= 0 || n > uint64(len(src)-k) {
			return cache.Tool{}, fmt.Errorf("packed tool is damaged (part %d)", i)
		}
		parts[i] = src[k : k+int(n)]
		src = src[k+int(n):]
	}
	t := cache.Tool{Title: string(parts[0]), Description: string(parts[1])}
	if len(parts[2]) > 0 {
		t.InputSchema = bytes.Clone(parts[2])
	}
	if len(parts[3]) > 0 {
		t.OutputSchema = bytes.Clone(parts[3])
	}
	return t, nil
}

// packer packs the raw bodies of entries into blocks, kept in file where it can.
type packer struct {
	file    *bodyFile
	fw      *flate.Writer
	out     bytes.Buffer
	plain   []byte
	pending []*toolBody
}

// pack packs every raw body of entries, in order, so the tools of one server share
// blocks, into file where it can (nil: on the heap). Bodies already packed stay where
// they are.
func pack(entries []Tool, file *bodyFile) error {
	p := packer{file: file}
	for i := range entries {
		b := &entries[i].body
		if b.raw == nil {
			continue
		}
		start := len(p.plain)
		p.plain = appendBody(p.plain, b.raw)
		b.off, b.n = uint16(start), uint32(len(p.plain)-start)
		b.sum = schemaSum(b.raw.InputSchema)
		p.pending = append(p.pending, b)
		if len(p.plain) >= bodyBlockSize {
			if err := p.flush(); err != nil {
				return err
			}
		}
	}
	return p.flush()
}

// flush compresses the open block and hands it to its bodies.
func (p *packer) flush() error {
	if len(p.pending) == 0 {
		return nil
	}
	p.out.Reset()
	if p.fw == nil {
		fw, err := flate.NewWriter(&p.out, flate.DefaultCompression)
		if err != nil {
			return err
		}
		p.fw = fw
	} else {
		p.fw.Reset(&p.out)
	}
	if _, err := p.fw.Write(p.plain); err != nil {
		return err
	}
	if err := p.fw.Close(); err != nil {
		return err
	}
	blk, inFile := p.file.block(p.out.Bytes())
	if !inFile {
		p.file = nil // the rest of this pack stays on the heap too
	}
	for _, b := range p.pending {
		b.blk, b.raw = blk, nil
	}
	p.plain, p.pending = p.plain[:0], p.pending[:0]
	return nil
}
