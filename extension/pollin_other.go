//go:build !unix

package extension

import "io"

// pollable returns in as it is: only Unix pipes are switched to the poller.
func pollable(in io.Reader) (io.Reader, func()) { return in, func() {} }

// pollableOut returns out as it is.
func pollableOut(out io.Writer) (io.Writer, func()) { return out, func() {} }
