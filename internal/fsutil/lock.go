package fsutil

import (
	"context"
	"time"

	"github.com/gofrs/flock"
)

// lockRetry is how often Lock tries again while another process holds the lock: short
// next to the work done under these locks (one small file read and written), long
// enough not to spin.
const lockRetry = 10 * time.Millisecond

// Lock takes the exclusive cross-process lock on the file at path (created with mode
// 0600 when missing), waiting while another process holds it, and returns the function
// that releases it. It fails with ctx's error when ctx ends first (also when ctx has
// already ended), or with the error from locking the file.
func Lock(ctx context.Context, path string) (unlock func(), err error) {
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err := fl.TryLockContext(ctx, lockRetry)
	if err == nil && !ok {
		err = ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	return func() { _ = fl.Unlock() }, nil
}
