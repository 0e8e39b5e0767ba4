package query

// byteSet is a set of ASCII bytes built once for a fixed cutset:
// strings.Trim builds its set from the cutset on every call, and the shape
// tests trim every word of every query.
type byteSet [2]uint64

func newByteSet(chars string) byteSet {
	var s byteSet
	for i := 0; i < len(chars); i++ {
		c := chars[i]
		s[c>>6&1] |= 1 << (c & 63)
	}
	return s
}

func (s *byteSet) has(c byte) bool { return c < 128 && s[c>>6]&(1<<(c&63)) != 0 }

// trim returns w without the leading and trailing bytes in s, as
// strings.Trim(w, the chars of s) does.
func (s *byteSet) trim(w string) string {
	i, j := 0, len(w)
	for i < j && s.has(w[i]) {
		i++
	}
	for j > i && s.has(w[j-1]) {
		j--
	}
	return w[i:j]
}

// The punctuation trimmed off a query word before its shape is read.
var (
	wordEdges  = newByteSet(wordEdgeChars)  // wordShape, fileExtension
	identEdges = newByteSet(identEdgeChars) // identShape: a dot ends a sentence, not a name
	valueEdges = newByteSet(valueEdgeChars) // valueShape: a colon is inside a time
)

const (
	wordEdgeChars  = "\"'`()[]{}<>,;:!?"
	identEdgeChars = "\"'`()[]{}<>,;!?."
	valueEdgeChars = "\"'`()[]{}<>,;!?"
)
