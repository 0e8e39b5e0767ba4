package commands

import (
	"fmt"

	"github.com/zot-mcp/mcp-bridge/config"
)

// LineWidth is the width /mcp output is laid out for when the caller gives none (the CLI,
// and a zot host whose terminal is unknown to the extension).
const LineWidth = 100

// modeBrief is the short reason for the exposure mode on the /mcp status line; doctor
// gives the long one.
func modeBrief(cfg *config.Config, deferred bool) string {
	switch {
	case cfg.ToolExposureSource != "" && cfg.ToolExposure != config.ToolExposureAuto && cfg.ToolExposure != "":
		return fmt.Sprintf("toolExposure set in %s", cfg.ToolExposureSource)
	case deferred:
		return "zot hides the tools until a search activates them"
	}
	return "zot without capabilities; toolExposure overrides"
}
