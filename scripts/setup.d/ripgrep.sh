#!/usr/bin/env bash
# The `grep` tool (node/tools/grep.ts) runs ripgrep: install Debian's `ripgrep` when `rg` is
# not on PATH. Idempotent; needs root (CI runs as root), otherwise prints what to run.
set -euo pipefail
if command -v rg >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ripgrep (rg) is missing: run 'sudo apt-get install -y ripgrep'" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends ripgrep >/dev/null 2>&1 || {
  apt-get update >/dev/null
  apt-get install -y --no-install-recommends ripgrep >/dev/null
}
rg --version | head -1
