#!/usr/bin/env bash
# The note-search relevance test (core/memory/note-search-relevance.test.ts) indexes the Linux
# manual pages of system calls and C library functions: install Debian's `manpages-dev` when
# they are missing. Idempotent; needs root (CI runs as root), otherwise prints what to run.
set -euo pipefail
if [ -e /usr/share/man/man2/open.2.gz ] && [ -e /usr/share/man/man3/printf.3.gz ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "manual pages are missing: run 'sudo apt-get install -y manpages-dev'" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Minimal images may exclude /usr/share/man from packages; allow it for the reinstall.
if grep -rqs "path-exclude=/usr/share/man" /etc/dpkg/dpkg.cfg.d/; then
  echo "path-include=/usr/share/man/man2/*" > /etc/dpkg/dpkg.cfg.d/zz-include-man-flow
  echo "path-include=/usr/share/man/man3/*" >> /etc/dpkg/dpkg.cfg.d/zz-include-man-flow
fi
apt-get install -y --reinstall --no-install-recommends manpages-dev >/dev/null 2>&1 || {
  apt-get update >/dev/null
  apt-get install -y --reinstall --no-install-recommends manpages-dev >/dev/null
}
ls /usr/share/man/man2 | wc -l | xargs echo "manual pages (section 2):"
