package bridge

import (
	"errors"
	"fmt"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/fsutil"
	"github.com/zot-mcp/mcp-bridge/trust"
)

// warnUnsafeFiles adds a warning to the config's problems (shown in /mcp, in doctor and
// in the note after ready) for each file the bridge uses besides the config and the
// approvals that another user could change: ZOT_HOME itself, the tool cache and the
// startup file. They are still used: what they hold is rebuilt from the servers, and
// the config and approvals, which decide what runs, are refused by their own loaders.
func (b *Bridge) warnUnsafeFiles() {
	for _, f := range []struct{ path, what string }{
		{b.opts.ZotHome, "it holds the config, the approvals and the tool cache, and another user could replace them"},
		{b.opts.CachePath, "it is the tool cache: another user could change the tools and descriptions the model is shown"},
		{cache.FramesPath(b.opts.CachePath), "it is the startup file: another user could change the tools registered at startup"},
	} {
		if f.path == "" {
			continue
		}
		var ue *fsutil.UnsafeError
		if errors.As(fsutil.CheckPath(f.path), &ue) {
			b.cfg.Problems = append(b.cfg.Problems, config.Problem{File: f.path, Level: config.LevelWarning,
				Message: fmt.Sprintf("%s; %s; fix: %s", ue.Why, f.what, ue.Fix)})
		}
	}
}

// unsafeTrustProblem makes a refused approval store one of the config's problems, so
// /mcp and doctor say why every project server waits for approval (the log alone is not
// read).
func (b *Bridge) unsafeTrustProblem(err error) {
	var ue *trust.UnsafeError
	if errors.As(err, &ue) {
		b.cfg.Problems = append(b.cfg.Problems, config.Problem{File: ue.Err.Path, Message: ue.Error()})
	}
}
