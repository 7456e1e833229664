#!/usr/bin/env bash
# Everything a fresh machine needs before helmflow runs: npm dependencies, then the pinned third-party servers
# built from Go modules (tools/build.sh). Both steps skip what is already in place.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "helmflow: installing npm dependencies"
  npm ci --no-audit --no-fund
fi
bash tools/build.sh
