#!/usr/bin/env bash
# Browser tests (e2e/) drive Debian's Chromium through playwright-core (never a downloaded
# browser). Idempotent: installs the `chromium` package when /usr/bin/chromium is missing.
set -euo pipefail
if [ -x "${FLOW_CHROMIUM:-/usr/bin/chromium}" ]; then
  exit 0
fi
bash "$(dirname "$0")/../apt-install.sh" chromium "Chromium (for the browser tests)"
chromium --version
