//go:build linux && (race || msan || asan)

package rawio

// checked builds (race, msan, asan) read and write through package syscall, whose Read and
// Write tell the checker what the system call touched and that it orders memory the way
// any read or write of a pipe does; a raw system call would hide both from it.
const checked = true
