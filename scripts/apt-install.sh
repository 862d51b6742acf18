#!/usr/bin/env bash
# Installs one Debian package for the setup steps (scripts/setup.d/*.sh), refreshing the package
# lists only when the first try fails. Needs root (CI runs as root); otherwise prints the command
# to run and fails. Usage: bash scripts/apt-install.sh <package> <what it is for>
set -euo pipefail
package="$1"
purpose="$2"
if [ "$(id -u)" -ne 0 ]; then
  echo "$purpose is missing: run 'sudo apt-get install -y $package'" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends "$package" >/dev/null 2>&1 || {
  apt-get update >/dev/null
  apt-get install -y --no-install-recommends "$package" >/dev/null
}
