package search

import (
	"testing"
	"unsafe"
)

// TestMergeMakesArraysOnce: merging the shards' phrases and name words makes each merged
// array once, at its length: grown by append, they kept up to a quarter more than they
// hold, resident for the life of the index. Not parallel: it counts allocations.
func TestMergeMakesArraysOnce(t *testing.T) {
	const docs, terms = 5000, 13
	shards := make([]*shard, 3)
	for i := range shards {
		sh := &shard{}
		for d := range docs {
			sh.phrases.terms = append(sh.phrases.terms, int32(d%terms), int32((d+i)%terms))
			sh.phrases.lens = append(sh.phrases.lens, [2]uint8{1, 1})
			sh.names.words = append(sh.names.words, nameWord(d%terms))
		}
		shards[i] = sh
	}
	remap := make([]int32, terms)
	for i := range remap {
		remap[i] = int32(terms - 1 - i)
	}
	var pi phraseIndex
	var ni nameIndex
	merge := func() {
		pi, ni = phraseIndex{}, nameIndex{}
		pi.reserve(shards)
		ni.reserve(shards)
		for _, sh := range shards {
			pi.addPhrases(&sh.phrases, remap)
			ni.addNames(&sh.names, remap)
		}
	}
	if n := testing.AllocsPerRun(3, merge); n != 3 {
		t.Errorf("merging made %v allocations, want 3 (the phrases' terms and lengths, the name words)", n)
	}
	if len(pi.terms) != 2*docs*len(shards) || len(pi.lens) != docs*len(shards) || len(ni.words) != docs*len(shards) {
		t.Fatalf("merged %d phrase terms, %d lengths, %d name words", len(pi.terms), len(pi.lens), len(ni.words))
	}
	for i, sh := range shards {
		for j, local := range sh.phrases.terms {
			if got, want := pi.terms[i*2*docs+j], uint16(remap[local]); got != want {
				t.Fatalf("shard %d phrase term %d: %d, want %d", i, j, got, want)
			}
		}
		for j, w := range sh.names.words {
			if got, want := termOf(ni.words[i*docs+j]), remap[termOf(w)]; got != want {
				t.Fatalf("shard %d name word %d: term %d, want %d", i, j, got, want)
			}
		}
	}
}

// TestVocabularyIsOneText: the index's words lie in one string, not in one small
// allocation each made among the build's garbage.
func TestVocabularyIsOneText(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		mk("files", "read_file", "Read a file from disk."),
		mk("mail", "send_message", "Send an email message to a recipient."),
		mk("maps", "geocode", "Turn an address into coordinates."),
	}
	for _, workers := range []int{1, 2, 3} {
		ix := newIndex(docs, workers)
		lo, hi, size := uintptr(0), uintptr(0), 0
		for w := range ix.vocab {
			p := uintptr(unsafe.Pointer(unsafe.StringData(w)))
			if lo == 0 || p < lo {
				lo = p
			}
			hi = max(hi, p+uintptr(len(w)))
			size += len(w)
		}
		if len(ix.vocab) < 10 || hi-lo != uintptr(size) {
			t.Errorf("%d workers: %d words of %d bytes span %d bytes, want one text of their size", workers, len(ix.vocab), size, hi-lo)
		}
		if hits := ix.Search("send email", 1); len(hits) != 1 || hits[0].Doc != 1 {
			t.Errorf("%d workers: Search(send email) = %v, want send_message", workers, hits)
		}
	}
}
