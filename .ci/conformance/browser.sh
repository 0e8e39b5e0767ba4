#!/usr/bin/env bash
# The non-interactive "browser" of the auth scenarios ($BROWSER for `mcp-bridge login`):
# the suite's authorization endpoint approves at once and redirects to the redirect_uri,
# so following the redirects with curl delivers the code to mcp-bridge's loopback
# callback, as a user's browser would after they clicked "allow".
set -euo pipefail
exec curl --silent --show-error --fail --location --max-redirs 5 --max-time 20 --output /dev/null "$1"
