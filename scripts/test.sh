#!/usr/bin/env bash
# `npm test`: prepares what the tests need (scripts/setup.d/*.sh: system packages, services),
# type-checks, then runs the whole vitest suite. Safe to run again: every setup step is
# idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
for step in scripts/setup.d/*.sh; do
  [ -e "$step" ] || continue
  echo "[setup] $(basename "$step")"
  bash "$step"
done
echo "[typecheck] tsc --noEmit"
npx tsc --noEmit -p .
echo "[test] vitest"
npx vitest run "$@"
