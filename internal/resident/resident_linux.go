package resident

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// DropProgram releases this process's resident pages of its program file's mappings
// that can never be written (code and read-only data: not writable, private); the
// writable data segment and every other mapping are left alone. The kernel will not let
// a running program's file be written (ETXTBSY) and a replaced one keeps its old inode,
// so what is mapped again is what was mapped before.
//
// Under a debugger nothing is released: its breakpoints are written into private copies
// of the code pages, which releasing would throw away.
func DropProgram() (Program, error) {
	if traced() {
		return Program{}, nil
	}
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		return Program{}, fmt.Errorf("finding the program file: %w", err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return Program{}, fmt.Errorf("reading this process's mappings: %w", err)
	}
	var got Program
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		m, ok := parseMapping(sc.Bytes())
		if !ok || m.perms[1] != '-' || m.perms[3] != 'p' ||
			m.inode != st.Ino || m.major != unix.Major(st.Dev) || m.minor != unix.Minor(st.Dev) {
			continue
		}
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED); e != 0 {
			return got, fmt.Errorf("releasing the program's pages at %#x: %w", m.start, e)
		}
		got.Mappings++
		got.Bytes += int64(m.end - m.start)
	}
	return got, sc.Err()
}

// mapping is one line of /proc/<pid>/maps: "start-end perms offset major:minor inode path".
type mapping struct {
	start, end   uintptr
	perms        string
	major, minor uint32
	inode        uint64
}

// parseMapping reads one line of /proc/<pid>/maps; a line of another shape is skipped.
func parseMapping(line []byte) (mapping, bool) {
	f := bytes.Fields(line)
	if len(f) < 5 || len(f[1]) != 4 {
		return mapping{}, false
	}
	start, end, ok := cutHex(f[0], '-')
	major, minor, ok2 := cutHex(f[3], ':')
	inode, err := strconv.ParseUint(string(f[4]), 10, 64)
	if !ok || !ok2 || err != nil || end <= start {
		return mapping{}, false
	}
	return mapping{start: uintptr(start), end: uintptr(end), perms: string(f[1]),
		major: uint32(major), minor: uint32(minor), inode: inode}, true
}

// cutHex reads two hexadecimal numbers either side of sep.
func cutHex(s []byte, sep byte) (uint64, uint64, bool) {
	a, b, ok := bytes.Cut(s, []byte{sep})
	if !ok {
		return 0, 0, false
	}
	x, err1 := strconv.ParseUint(string(a), 16, 64)
	y, err2 := strconv.ParseUint(string(b), 16, 64)
	return x, y, ok && err1 == nil && err2 == nil
}

// traced reports whether a debugger (or any tracer) is attached to this process.
func traced() bool {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return true // cannot tell: leave the pages alone
	}
	_, rest, ok := bytes.Cut(status, []byte("\nTracerPid:"))
	if !ok {
		return true
	}
	line, _, _ := bytes.Cut(rest, []byte{'\n'})
	return string(bytes.TrimSpace(line)) != "0"
}
