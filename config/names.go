package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// MaxServerNameLen is the longest server name, in bytes.
const MaxServerNameLen = 64

// nameRule is how every error about a server name ends: what a name may be.
var nameRule = fmt.Sprintf("use letters, digits, '-' and '_' (at most %d bytes)", MaxServerNameLen)

// CheckServerName is the one rule for a server name, on every path that writes or loads
// one (add, setup add, import, loading a file): letters, ASCII digits, '-' and '_', at
// most MaxServerNameLen bytes, not a word /mcp reads as its own (ReservedServerName), in
// its plain form (NFKC: no full-width letters, ligatures or other compatibility
// spellings), without invisible letters, and with the letters of one script (Japanese,
// Korean and Chinese may mix Han with their own scripts). Such a name is the same in the
// file, in tool names and on a command line, and cannot pass for another by mixing
// look-alike letters of two alphabets. Whether it looks like another server's name is
// CheckNewServerName's question.
func CheckServerName(name string) error {
	if name == "" {
		return errors.New("server name is empty; " + nameRule)
	}
	if len(name) > MaxServerNameLen {
		return fmt.Errorf("server name %s is %d bytes long; the limit is %d (letters, digits, '-' and '_')", quoteShort(name), len(name), MaxServerNameLen)
	}
	ascii := true
	for _, r := range name {
		if r >= utf8.RuneSelf {
			ascii = false
		}
		if !nameRune(r) {
			return fmt.Errorf("server name %s has the character %s; %s", quoteShort(name), runeText(r), nameRule)
		}
	}
	if ReservedServerName(name) {
		return fmt.Errorf("server name %q is a /mcp subcommand word (help, status, start, stop, restart, refresh, setup, login, logout, trust, untrust, prompts, prompt, answer, accept, decline, cancel, all) or a -flag, so /mcp %s could not reach the server; choose another name", name, name)
	}
	if ascii {
		return nil
	}
	if plain := norm.NFKC.String(name); plain != name {
		return fmt.Errorf("server name %q is not in its plain form (it has full-width letters, ligatures or other compatibility characters); write it as %q", name, plain)
	}
	if a, b, rb, mixed := mixedScripts(name); mixed {
		return fmt.Errorf("server name %q mixes %s and %s letters (%s is %s), so it can pass for a name it is not; write it in one script", name, a, b, runeText(rb), b)
	}
	return nil
}

// nameRune reports whether r may appear in a server name: an ASCII letter or digit, '-',
// '_', or a letter of another alphabet that is not invisible (the Hangul fillers are
// letters that show nothing).
func nameRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
		return true
	case r < utf8.RuneSelf:
		return false
	}
	return unicode.IsLetter(r) && !unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// runeText shows a rune in a message: quoted, with its code point when it is not plain
// ASCII (an invisible or look-alike letter must be told apart).
func runeText(r rune) string {
	if r < utf8.RuneSelf && unicode.IsPrint(r) {
		return strconv.QuoteRune(r)
	}
	return fmt.Sprintf("%s (U+%04X)", strconv.QuoteRune(r), r)
}

// scriptOf is the Unicode script of a letter ("" for the letters shared by every script,
// Common and Inherited). Every rune belongs to one script, so the search order does not
// matter; the usual ones are tried first.
func scriptOf(r rune) string {
	if r < utf8.RuneSelf {
		return "Latin"
	}
	for _, name := range []string{"Latin", "Cyrillic", "Greek", "Han"} {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	for name, table := range unicode.Scripts {
		if unicode.Is(table, r) {
			if name == "Common" || name == "Inherited" {
				return ""
			}
			return name
		}
	}
	return ""
}

// cjkSets are the scripts one name may mix: Japanese, Korean and Chinese writing use Han
// beside their own scripts.
var cjkSets = [][]string{{"Han", "Hiragana", "Katakana"}, {"Han", "Hangul"}, {"Han", "Bopomofo"}}

// mixedScripts finds two letters of name whose scripts may not stand in one name: it
// returns the first letter's script a, and the first rune rb of a script b that cannot go
// with the letters before it.
func mixedScripts(name string) (a, b string, rb rune, mixed bool) {
	var seen []string
	for _, r := range name {
		if !unicode.IsLetter(r) {
			continue
		}
		s := scriptOf(r)
		if s == "" || slices.Contains(seen, s) {
			continue
		}
		seen = append(seen, s)
		if len(seen) > 1 && !oneWriting(seen) {
			return seen[0], s, r, true
		}
	}
	return "", "", 0, false
}

// oneWriting reports whether the scripts all belong to one of cjkSets.
func oneWriting(scripts []string) bool {
	for _, set := range cjkSets {
		all := true
		for _, s := range scripts {
			all = all && slices.Contains(set, s)
		}
		if all {
			return true
		}
	}
	return false
}

// ReservedServerName reports whether name cannot be a server name because /mcp would read
// it as one of its own words: a subcommand (help, status, start, ...), the "all" target,
// or a flag (anything starting with '-'). Such a server could never be shown or addressed
// by name, so the configuration rejects it rather than letting a subcommand shadow it.
// The CLI's own subcommands (add, list, search, ...) are not reserved: on the command line
// a server name never stands where a subcommand does, and "search" or "tools" are
// ordinary server names.
func ReservedServerName(name string) bool {
	if strings.HasPrefix(name, "-") {
		return true
	}
	switch strings.ToLower(name) {
	case "help", "status", "start", "stop", "restart", "refresh", "setup", "login", "logout", "trust", "untrust", "prompts", "prompt", "answer", "accept", "decline", "cancel", "all":
		return true
	}
	return false
}

// lookalikes maps the Cyrillic, Greek and Latin letters that look like a plain Latin
// letter (in common fonts, in the same case) to that letter. Hand-picked from the
// letters Unicode's confusables list maps to ASCII; it is what a server name can be made
// of to pass for another.
var lookalikes = map[rune]rune{
	// Cyrillic capitals
	'А': 'A', 'В': 'B', 'С': 'C', 'Е': 'E', 'Н': 'H', 'І': 'I', 'Ј': 'J', 'К': 'K', 'М': 'M',
	'О': 'O', 'Р': 'P', 'Ѕ': 'S', 'Т': 'T', 'Х': 'X', 'У': 'Y', 'Ү': 'Y', 'Ԛ': 'Q', 'Ԝ': 'W',
	'Ӏ': 'l', 'Ꙅ': 'S',
	// Cyrillic small letters
	'а': 'a', 'с': 'c', 'ԁ': 'd', 'е': 'e', 'һ': 'h', 'і': 'i', 'ј': 'j', 'к': 'k', 'ӏ': 'l',
	'о': 'o', 'р': 'p', 'ԛ': 'q', 'ѕ': 's', 'у': 'y', 'ү': 'y', 'ԝ': 'w', 'х': 'x', 'ь': 'b',
	// Greek capitals
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N',
	'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X', 'Ϲ': 'C', 'Ϳ': 'J',
	// Greek small letters
	'α': 'a', 'γ': 'y', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u',
	'χ': 'x', 'ϲ': 'c', 'ϳ': 'j', 'η': 'n',
	// Latin letters outside ASCII
	'ı': 'i', 'ɑ': 'a', 'ɡ': 'g', 'ɩ': 'i', 'ʏ': 'y', 'ꞵ': 'b',
}

// skeleton is what a name looks like, for telling look-alikes apart: its NFKC form with
// every look-alike letter replaced by its Latin letter, the shapes that are hard to tell
// apart in a listing made one (I, l, 1 and |; O and 0), lower-cased. With fold, the name
// is lower-cased first, so names that differ only in case ("GITHUB", "github") meet too;
// without it, a capital I still meets an l ("Ilm", "llm"), which lower-casing would hide.
// Two names with the same skeleton, either way, can be mistaken for each other.
func skeleton(name string, fold bool) string {
	s := norm.NFKC.String(name)
	if fold {
		s = strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s {
		if l, ok := lookalikes[r]; ok {
			r = l
		}
		switch r {
		case 'I', '1', '|':
			r = 'l'
		case '0':
			r = 'o'
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// lookAlike reports whether two different names can be mistaken for each other.
func lookAlike(a, b string) bool {
	return a != b && (skeleton(a, false) == skeleton(b, false) || skeleton(a, true) == skeleton(b, true))
}

// ConfusableWith returns the first of others that looks like name (the same skeleton)
// without being name.
func ConfusableWith(name string, others []string) (string, bool) {
	for _, o := range others {
		if lookAlike(name, o) {
			return o, true
		}
	}
	return "", false
}

// CheckNewServerName is CheckServerName for a name about to be added beside the servers
// named in others: it also refuses a name that looks like one of them (the same
// skeleton: "GitHub" beside "github", a Cyrillic "аре" beside "ape"), which the user
// could take for the other server. A name equal to one of others is not refused here
// (adding it replaces that entry, or is refused as existing).
func CheckNewServerName(name string, others []string) error {
	if err := CheckServerName(name); err != nil {
		return err
	}
	if o, ok := ConfusableWith(name, others); ok {
		return fmt.Errorf("server name %q looks like the server %q, so one could be taken for the other; choose a name that differs at a glance", name, o)
	}
	return nil
}

// FixServerName turns name into one CheckNewServerName accepts beside taken and that is
// not taken, for import; a name that already is one is returned as it is. Otherwise each
// character a name may not have becomes '-', and so does each letter of a script
// other than the one most of its letters are in (a look-alike of a Latin letter in a
// mostly Latin name becomes that letter: "sеarch" is "search"); runs of '-' are one, a
// leading or trailing '-' is dropped, the result is cut to MaxServerNameLen bytes, a
// reserved word gets "-server" and an empty result is "server"; when that is taken or
// looks like a taken name, "-2", "-3", ... is appended.
func FixServerName(name string, taken []string) string {
	if CheckNewServerName(name, taken) == nil && !slices.Contains(taken, name) {
		return name
	}
	// Bytes that are not UTF-8 keep NFKC from reaching the character after them, and what
	// fixChars leaves may have a plainer form again: clean until nothing changes.
	base := strings.ToValidUTF8(name, "")
	for range 4 {
		next := fixChars(norm.NFKC.String(base))
		if next == base {
			break
		}
		base = next
	}
	if base == "" {
		base = "server"
	}
	if ReservedServerName(base) {
		base = tidy(base + "-server")
	}
	free := func(n string) bool {
		_, look := ConfusableWith(n, taken)
		return !look && !slices.Contains(taken, n)
	}
	if free(base) {
		return base
	}
	// A taken name blocks at most one suffix number per skeleton (two), so one of these is
	// free.
	for i := 2; i <= 2*len(taken)+2; i++ {
		suffix := "-" + strconv.Itoa(i)
		n := tidy(textcut.Prefix(base, MaxServerNameLen-len(suffix))) + suffix
		if free(n) {
			return n
		}
	}
	return base
}

// fixChars replaces by '-' the characters of s a name may not have and the letters of
// every script but s's main one (see FixServerName), and tidies the result.
func fixChars(s string) string {
	count := map[string]int{}
	main := ""
	for _, r := range s {
		if sc := scriptOf(r); nameRune(r) && unicode.IsLetter(r) && sc != "" {
			count[sc]++
			if count[sc] > count[main] {
				main = sc
			}
		}
	}
	var b strings.Builder
	// kept are the scripts written so far: each one more must make one writing with all
	// of them, not only with the main one (Han goes with Kana and with Hangul, but the
	// three together are no one writing).
	kept := []string{main}
	for _, r := range s {
		sc := ""
		if nameRune(r) && unicode.IsLetter(r) {
			sc = scriptOf(r)
		}
		l, look := lookalikes[r]
		switch {
		case !nameRune(r):
			b.WriteByte('-')
		case sc == "" || slices.Contains(kept, sc):
			b.WriteRune(r)
		case oneWriting(append(slices.Clip(kept), sc)):
			kept = append(kept, sc)
			b.WriteRune(r)
		case main == "Latin" && look:
			b.WriteRune(l)
		default:
			b.WriteByte('-')
		}
	}
	return tidy(b.String())
}

// tidy makes runs of '-' one, drops '-' at both ends and cuts s to MaxServerNameLen bytes.
func tidy(s string) string {
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	s = strings.Trim(s, "-")
	if len(s) > MaxServerNameLen {
		s = strings.TrimRight(textcut.Prefix(s, MaxServerNameLen), "-")
	}
	return s
}

// refuseLookalikes fails every server whose name looks like another's (lookAlike) after
// the merge, keeping the one most likely the user's: the global file's, else a name in
// plain ASCII, else the first in byte order. Two rows that look the same in /mcp could be
// mistaken for each other: a project file could put a "Search" or a Cyrillic "аре" beside
// the user's "search" or "ape". Names that already fail CheckServerName take no part, so
// a refused name never costs a good one its place.
func refuseLookalikes(names []string, merged map[string]*draft) {
	rank := func(n string) int {
		r := 0
		if merged[n].srv.Scope != ScopeGlobal {
			r += 2
		}
		if !isASCII(n) {
			r++
		}
		return r
	}
	var cands []string
	for _, n := range names {
		if CheckServerName(n) == nil {
			cands = append(cands, n)
		}
	}
	// names is sorted, and a stable sort keeps that order within a rank.
	slices.SortStableFunc(cands, func(a, b string) int { return rank(a) - rank(b) })
	var kept []string
	for _, n := range cands {
		if like, ok := ConfusableWith(n, kept); ok {
			merged[n].fail("", fmt.Sprintf("server name looks like the server %q (%s), so one could be taken for the other; this one is not used: rename it so that the names differ at a glance", like, merged[like].srv.Source))
			continue
		}
		kept = append(kept, n)
	}
}

// isASCII reports whether s is plain ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
