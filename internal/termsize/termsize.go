// Package termsize reads the width of the terminal the process runs under. zot gives an
// extension pipes for stdin and stdout and a log file for stderr, so the width comes from
// the controlling terminal itself, which the extension shares with zot.
package termsize
