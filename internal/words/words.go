// Package words counts things in messages the way people write them: "1 tool",
// "2 tools", never "1 tools" or "tool(s)".
package words

import "strconv"

// Count is n and the noun, in the plural unless n is 1. The nouns the bridge counts
// (tool, server, prompt, resource, line) all take an s.
func Count(n int, noun string) string { return strconv.Itoa(n) + " " + Noun(n, noun) }

// Noun is the noun as it follows n: "tool" after 1, "tools" otherwise (for tables that
// align the number and the word apart).
func Noun(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
