#!/usr/bin/env bash
# The `grep` tool (node/tools/grep.ts) runs ripgrep: install Debian's `ripgrep` when `rg` is
# not on PATH. Idempotent.
set -euo pipefail
if command -v rg >/dev/null 2>&1; then
  exit 0
fi
bash "$(dirname "$0")/../apt-install.sh" ripgrep "ripgrep (rg)"
rg --version | sed -n 1p   # sed reads it all: head would close the pipe and fail the step under pipefail
