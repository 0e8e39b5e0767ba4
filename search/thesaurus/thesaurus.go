// Package thesaurus is a general-English thesaurus derived from WordNet 3.0:
// for a word, the words that share one of its common senses (its synonyms),
// and for an irregular form its base form (ran → run, children → child).
// The search ranker reads it to reach tools whose words a request does not
// use.
//
// The table is one sorted, read-only text blob embedded in the binary and
// searched in place, so it costs no heap and no work at start: a lookup
// only reads the few pages its binary search touches. internal/gen derives
// it from the WordNet database files; README.md says what is kept, how to
// regenerate it, and carries WordNet's licence.
//
// WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
package thesaurus

import (
	_ "embed"
	"iter"
	"strings"
)

// table holds one line per key, sorted by key in byte order: the key, then
// one tab-separated field per Relation, each a space-separated list of
// single lower-case words.
//
//go:embed thesaurus.txt
var table string

// lineAt returns the line of table holding byte offset i (a line start or
// inside one) and the offsets of its start and of the byte after its end.
func lineAt(i int) (l string, start, end int) {
	start = strings.LastIndexByte(table[:i], '\n') + 1
	end = len(table)
	if n := strings.IndexByte(table[i:], '\n'); n >= 0 {
		end = i + n
	}
	return table[start:end], start, end
}

// PlainWord reports whether w has the form of every word the table holds: a
// single lower-case word of letters a-z, two letters or more.
func PlainWord(w string) bool {
	if len(w) < 2 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// Relation is how the words of an Entry relate to its key.
type Relation int

// Relations, in the order of a table line's fields.
const (
	Base    Relation = iota // base forms of an irregular form (ran → run)
	Synonym                 // words sharing a sense that is common for both
)

// Entry is the line of one key; its zero value is the entry of a word the
// table does not hold.
type Entry struct {
	line string
}

// Lookup returns the entry of word (lower case, one word) and whether the
// table holds it. It allocates nothing.
func Lookup(word string) (Entry, bool) {
	return search(word, "")
}

// detach are WordNet's rules of detachment (as in its morphy): an
// inflectional ending and what replaces it in the base form.
var detach = [...][2]string{
	{"ies", "y"}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"},
	{"shes", "sh"}, {"men", "man"}, {"es", "e"}, {"es", ""}, {"s", ""},
	{"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""},
	{"er", ""}, {"er", "e"}, {"est", ""}, {"est", "e"},
}

// LookupForm returns the entry of word or, when the table does not hold it,
// of the first base form WordNet's rules of detachment give it (closing →
// close, boxes → box). Irregular forms are keys of their own, whose Base
// names their base form. It allocates nothing.
func LookupForm(word string) (Entry, bool) {
	if e, ok := search(word, ""); ok {
		return e, true
	}
	for _, r := range detach {
		if stem, ok := strings.CutSuffix(word, r[0]); ok && len(stem)+len(r[1]) >= 2 {
			if e, ok := search(stem, r[1]); ok {
				return e, true
			}
		}
	}
	return Entry{}, false
}

// search finds the line whose key is stem+ending without building that
// string: a binary search over the table's bytes, each step reading the line
// around its middle byte, so that no index of line starts is needed.
func search(stem, ending string) (Entry, bool) {
	lo, hi := 0, len(table) // lo is a line start; the key is in table[lo:hi] if anywhere
	for lo < hi {
		l, start, end := lineAt(int(uint(lo+hi) >> 1))
		key := l
		if tab := strings.IndexByte(l, '\t'); tab >= 0 {
			key = l[:tab]
		}
		switch c := compare(key, stem, ending); {
		case c == 0:
			return Entry{line: l}, true
		case c < 0:
			lo = end + 1
		default:
			hi = start
		}
	}
	return Entry{}, false
}

// compare compares key with stem+ending in byte order.
func compare(key, stem, ending string) int {
	n := min(len(key), len(stem))
	if c := strings.Compare(key[:n], stem[:n]); c != 0 {
		return c
	}
	if n < len(stem) {
		return -1 // key is a proper prefix of stem
	}
	return strings.Compare(key[n:], ending)
}

// Field returns the words of relation r separated by single spaces, or "".
func (e Entry) Field(r Relation) string {
	rest := e.line
	for range r + 1 {
		tab := strings.IndexByte(rest, '\t')
		if tab < 0 {
			return ""
		}
		rest = rest[tab+1:]
	}
	if tab := strings.IndexByte(rest, '\t'); tab >= 0 {
		rest = rest[:tab]
	}
	return rest
}

// Words yields the words of relation r.
func (e Entry) Words(r Relation) iter.Seq[string] { return wordsOf(e.Field(r)) }

// wordsOf yields the words of a field. It and Words are small enough to be
// inlined, so that a range over them allocates nothing.
func wordsOf(f string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for f != "" {
			w, rest, _ := strings.Cut(f, " ")
			if !yield(w) {
				return
			}
			f = rest
		}
	}
}
