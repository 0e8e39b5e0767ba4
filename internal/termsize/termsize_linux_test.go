package termsize

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// helperEnv makes the test binary print Columns() and exit: the child a test starts on a
// terminal of its own.
const helperEnv = "TERMSIZE_TEST_PRINT_COLUMNS"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		fmt.Print(Columns())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestColumns: a process whose stdin and stdout are not the terminal (as zot starts an
// extension) reads the width of its controlling terminal; without one it reads 0.
func TestColumns(t *testing.T) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Col: 57, Row: 20}); err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	for _, tc := range []struct {
		name string
		ctty bool
		want int
	}{
		{"controlling terminal of 57 columns", true, 57},
		{"no controlling terminal", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperEnv+"=1")
			// The terminal is only the child's controlling terminal (a descriptor it is
			// given as fd 3); its stdin and stdout are pipes, as an extension's are.
			cmd.ExtraFiles = []*os.File{tty}
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: tc.ctty, Ctty: 3}
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(out)); got != strconv.Itoa(tc.want) {
				t.Errorf("Columns() = %s, want %d", got, tc.want)
			}
		})
	}
}
