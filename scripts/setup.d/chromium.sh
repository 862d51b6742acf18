#!/usr/bin/env bash
# Browser tests (e2e/) drive Debian's Chromium through playwright-core (never a downloaded
# browser). Idempotent: installs the `chromium` package when /usr/bin/chromium is missing.
set -euo pipefail
if [ -x "${FLOW_CHROMIUM:-/usr/bin/chromium}" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "chromium is missing: run 'sudo apt-get install -y chromium'" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 || {
  apt-get update >/dev/null
  apt-get install -y --no-install-recommends chromium >/dev/null
}
chromium --version
