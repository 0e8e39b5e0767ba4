package resident

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// programRSS is how much of the program file's read-only mappings is resident (KiB).
func programRSS(t *testing.T) int {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		t.Fatal(err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	total, in := 0, false
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		line := sc.Bytes()
		if m, ok := parseMapping(line); ok {
			in = m.perms[1] == '-' && m.inode == st.Ino
			continue
		}
		if rest, ok := bytes.CutPrefix(line, []byte("Rss:")); ok && in {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"))
			if err != nil {
				t.Fatalf("smaps line %q: %v", line, err)
			}
			total += n
		}
	}
	return total
}

// TestDropProgram: the program's code and read-only data are released, and the
// program runs on.
func TestDropProgram(t *testing.T) {
	if traced() {
		t.Skip("under a debugger DropProgram releases nothing, by design")
	}
	before := programRSS(t)
	got, err := DropProgram()
	if err != nil {
		t.Fatal(err)
	}
	after := programRSS(t)
	if got.Mappings < 2 || got.Bytes <= 0 {
		t.Fatalf("released %+v; want the code and the read-only data", got)
	}
	// Running the test itself (reading smaps, the runtime) maps some pages again, a
	// fault-around window at a time.
	if before-after < 512 {
		t.Fatalf("%d KiB of the program resident before, %d after; want more than 512 KiB released", before, after)
	}
	// What runs after is mapped again from the file.
	if s := strings.Repeat("ok", 3); s != "okokok" {
		t.Fatal(s)
	}
}

// TestParseMapping: lines of /proc/<pid>/maps as the kernel writes them.
func TestParseMapping(t *testing.T) {
	for _, tc := range []struct {
		line string
		want mapping
		ok   bool
	}{
		{"00400000-00b5f000 r-xp 00000000 fd:01 1234567 /tmp/x y/bridge", mapping{start: 0x400000, end: 0xb5f000, perms: "r-xp", major: 0xfd, minor: 1, inode: 1234567}, true},
		{"7f8e58b43000-7f8e58ddd000 rw-p 00000000 00:00 0 ", mapping{start: 0x7f8e58b43000, end: 0x7f8e58ddd000, perms: "rw-p", inode: 0}, true},
		{"7ffe03740000-7ffe03761000 rw-p 00000000 00:00 0                          [stack]", mapping{start: 0x7ffe03740000, end: 0x7ffe03761000, perms: "rw-p"}, true},
		{"00400000-00b5f000 r-xp 00000000 08:10 99 /usr/bin/bridge (deleted)", mapping{start: 0x400000, end: 0xb5f000, perms: "r-xp", major: 8, minor: 0x10, inode: 99}, true},
		{"00400000 r-xp 00000000 fd:01 1", mapping{}, false},
		{"00b5f000-00400000 r-xp 00000000 fd:01 1", mapping{}, false},
		{"00400000-00b5f000 r-x 00000000 fd:01 1", mapping{}, false},
		{"00400000-00b5f000 r-xp 00000000 fd01 1", mapping{}, false},
		{"", mapping{}, false},
	} {
		got, ok := parseMapping([]byte(tc.line))
		if ok != tc.ok || got != tc.want {
			t.Errorf("%q: %+v %v, want %+v %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}
