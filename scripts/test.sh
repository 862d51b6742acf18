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
echo "[typecheck] tsc --noEmit (the package, then the app)"
npx tsc --noEmit -p .
npx tsc --noEmit -p ui
echo "[test] vitest"
npx vitest run "$@"
