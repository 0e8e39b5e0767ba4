// Package shellquote is the one quoting of a word for a POSIX shell: the commands the
// bridge prints for the user to paste (a chmod of a file, a client's `mcp add` line).
package shellquote

import "strings"

// plain are the characters that need no quoting in any position.
const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:,@"

// Quote is s as one shell word: as it is when every character is plain, otherwise in
// single quotes (a single quote inside as '\”).
func Quote(s string) string {
	if s != "" && strings.Trim(s, plain) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
