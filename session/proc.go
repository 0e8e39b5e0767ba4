package session

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/ring"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// Stop timing: after stdin closes a well-behaved server exits at once; one that does not is
// sent SIGTERM (through its supervisor, which then kills the whole group), then SIGKILL.
// The sum stays inside the host's 2 s shutdown grace.
const (
	stdinGrace   = 400 * time.Millisecond
	sigtermGrace = 700 * time.Millisecond
	killGrace    = 300 * time.Millisecond
	// stdoutLinger lets a last response written just before exit be read before the pipe
	// is closed under the reader.
	stdoutLinger = 200 * time.Millisecond
	// stderrDrainMax bounds how long the exit announcement waits for stderr EOF.
	stderrDrainMax = 2 * time.Second
	// stderrLineCap bounds one logged stderr line.
	stderrLineCap = 4 << 10
)

// process is one running stdio server (with its supervisor when one is configured).
type process struct {
	cmd     *exec.Cmd
	stdin   *os.File // our write end
	stdout  *os.File // our read end
	exitedC chan struct{}
	exitErr error // valid once exitedC is closed
	tail    *Ring
}

// spawn starts o.Config's command, under o.Supervisor when set (the command follows
// after "--"); its stderr goes to tail and, rate-limited, to the log.
func spawn(o *Stdio, tail *Ring) (*process, error) {
	cfg := o.Config
	argv := append([]string{cfg.Command}, cfg.Args...)
	if len(o.Supervisor) > 0 {
		argv = append(append(append([]string{}, o.Supervisor...), "--"), argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = o.Env
	cmd.Dir = o.Dir
	cmd.SysProcAttr = sysProcAttr()

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		// A missing working directory fails the start as a missing command does.
		if st, serr := os.Stat(o.Dir); o.Dir != "" && (serr != nil || !st.IsDir()) {
			return nil, &DirError{Dir: o.Dir, NotDir: serr == nil, Err: err}
		}
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("command %q not found: install it or fix \"command\" in %s", cfg.Raw.Command, cfg.Source)
		}
		return nil, fmt.Errorf("spawn %q: %w", cfg.Raw.Command, err)
	}
	closeAll(inR, outW, errW) // the child holds these now
	p := &process{cmd: cmd, stdin: inW, stdout: outR, exitedC: make(chan struct{}), tail: tail}
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		out := NewLineLog(o.Log, cfg.Name, "server stderr", o.Clock)
		out.redact = o.Redact
		pipeStderr(errR, p.tail, out)
	}()
	go func() {
		err := cmd.Wait()
		// The exit is announced once stderr is drained, so the tail explains it. EOF comes
		// as soon as the group is gone (the supervisor kills it); the bound only covers a
		// grandchild that escaped the group and keeps stderr open. Nothing decides on
		// this timing: callers wait for exited itself.
		select {
		case <-stderrDone:
		case <-time.After(stderrDrainMax):
		}
		p.exitErr = err
		close(p.exitedC)
		time.Sleep(stdoutLinger)
		_ = outR.Close()
		_ = errR.Close()
	}()
	return p, nil
}

// DirError is why a stdio server did not start: its working directory (Stdio.Dir) does
// not exist or is no directory. The caller words it, knowing whether the directory is the
// server's own "cwd" or the project's.
type DirError struct {
	Dir    string
	NotDir bool // it exists but is not a directory
	Err    error
}

func (e *DirError) Error() string {
	if e.NotDir {
		return fmt.Sprintf("working directory %q is not a directory", e.Dir)
	}
	return fmt.Sprintf("working directory %q does not exist", e.Dir)
}

func (e *DirError) Unwrap() error { return e.Err }

// stop ends the process tree: close stdin, wait, SIGTERM, wait, SIGKILL of the group.
func (p *process) stop(ctx context.Context) {
	_ = p.stdin.Close()
	if p.wait(ctx, stdinGrace) {
		return
	}
	signalTree(p.cmd, syscall.SIGTERM)
	if p.wait(ctx, sigtermGrace) {
		return
	}
	signalTree(p.cmd, syscall.SIGKILL)
	p.wait(context.Background(), killGrace)
}

func (p *process) wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exitedC:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func (p *process) exited() <-chan struct{} { return p.exitedC }

// exitEnd is the process's exit with its status and stderr tail.
func (p *process) exitEnd() End {
	return End{Cause: CauseExited, Status: p.exitStatus(), Stderr: p.tail.String()}
}

// exitStatus says how the process ended, without its stderr: what the model may read.
func (p *process) exitStatus() string {
	if p.exitErr != nil {
		return "exited: " + p.exitErr.Error()
	}
	return "exited with status 0"
}

// pipeStderr keeps every line in tail and logs what out lets through.
func pipeStderr(r io.Reader, tail *Ring, out *LineLog) {
	defer out.close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		long := errors.Is(err, bufio.ErrBufferFull)
		if len(line) > 0 {
			text := bytes.TrimSpace(line)
			if len(text) > stderrLineCap {
				text = text[:stderrLineCap]
			}
			if len(text) > 0 {
				line := string(text)
				tail.add(line)
				out.line(line)
			}
		}
		if long { // skip the rest of an over-long line
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// Ring keeps the last lines of a stream within a line and byte cap: a stdio server's
// stderr tail, kept after it exits for the user (never for the model).
type Ring struct {
	r        *ring.Ring[string]
	maxBytes int
}

// NewRing keeps up to maxLines lines and maxBytes bytes.
func NewRing(maxLines, maxBytes int) *Ring {
	return &Ring{r: ring.NewSized(maxLines, maxBytes, func(s string) int { return len(s) }), maxBytes: maxBytes}
}

// NewStderrTail is the ring a stdio server's stderr goes to.
func NewStderrTail() *Ring { return NewRing(32, 8<<10) }

func (r *Ring) add(s string) {
	if len(s) > r.maxBytes {
		s = s[len(s)-r.maxBytes:]
	}
	r.r.Add(s)
}

// String returns the last few lines joined, short enough for an error message.
func (r *Ring) String() string { return textcut.Truncate(joinLines(r.r.Last(3)), 600) }

// Lines returns a copy of every kept line and how many lines were ever added.
func (r *Ring) Lines() ([]string, int) { return r.r.All() }

func joinLines(ls []string) string {
	var b bytes.Buffer
	for i, l := range ls {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(l)
	}
	return b.String()
}
