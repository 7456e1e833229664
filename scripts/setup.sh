#!/usr/bin/env bash
# Everything a fresh machine needs before helmflow runs: npm dependencies, then the pinned third-party servers
# built from Go modules (tools/build.sh), then Debian's chromium for the browser test. Each step skips what is
# already in place.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "helmflow: installing npm dependencies"
  npm ci --no-audit --no-fund
fi
bash tools/build.sh
# The Temporal UI test (test/e2e/temporal-ui.test.ts) drives Debian's chromium: playwright-core downloads no browser.
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null; then
  echo "helmflow: installing Debian's chromium for the Temporal UI test"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium
fi
