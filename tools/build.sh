#!/usr/bin/env bash
# Builds the third-party servers helmflow's embedded stack needs, from Go modules at the versions pinned in
# tools/pins.json, into a cache outside the repo. Each tool lands in $HELMFLOW_CACHE/tools/<name>-<version>/,
# so a pin change builds anew and a cached tool is skipped. Nothing is downloaded but Go modules.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${HELMFLOW_CACHE:-$HOME/.cache/helmflow}
tools="$cache/tools"
mkdir -p "$tools"
# One build at a time per cache: a second setup (parallel test runs, `npm start` beside `npm test`) waits here and
# then finds every tool cached, instead of building the same tool into the same directory at once.
exec 9>"$tools/.build.lock"
flock 9

# HELMFLOW_GO names the go binary; else go on PATH; else the standard /usr/local/go install.
go_bin=${HELMFLOW_GO:-}
if [ -z "$go_bin" ]; then
  go_bin=$(command -v go || true)
  [ -z "$go_bin" ] && [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go
fi
if [ -z "$go_bin" ] || [ ! -x "$go_bin" ]; then
  echo "helmflow: the Go toolchain (go 1.26 or newer) is needed to build the pinned tools and was not found${go_bin:+ at $go_bin}." >&2
  echo "          Install it (Debian: apt-get install golang-go, or a release from the Go project) and run this again." >&2
  exit 2
fi
PATH="$(dirname "$go_bin"):$PATH"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false

pin() { node -e "process.stdout.write(require('$here/pins.json')['$1'])"; }
k8s=$(pin kubernetes)
etcd=$(pin etcd)
temporal=$(pin temporal)
temporal_sqlite=$(pin temporal-sqlite)
helm=$(pin helm)
k3s_helm_controller=$(pin k3s-helm-controller)

step() { printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
done_marker() { [ -f "$1/.complete" ]; }

# A module of helmflow's own in directory $1 (named $2, Go $3) that requires each "path version" after them, for a
# tool whose published module cannot be built as it is (`go install` refuses replace directives) or needs a newer
# dependency than it names: `go build` in it resolves them all together.
wrapper_module() {
  local dir=$1 name=$2 go=$3
  shift 3
  mkdir -p "$dir"
  {
    printf 'module helmflow.local/%s\ngo %s\nrequire (\n' "$name" "$go"
    printf '\t%s\n' "$@"
    printf ')\n'
  } >"$dir/go.mod"
}

# builds one tool directory atomically: a half-built directory is never taken as cached.
build_into() {
  local name=$1 dir=$2
  shift 2
  if done_marker "$dir"; then
    echo "helmflow: $name is cached in $dir"
    return
  fi
  step "building $name into $dir (first build only; progress below)"
  local start=$SECONDS
  rm -rf "$dir.partial" && mkdir -p "$dir.partial"
  "$@" "$dir.partial"
  touch "$dir.partial/.complete"
  rm -rf "$dir" && mv "$dir.partial" "$dir"
  echo "helmflow: $name built in $((SECONDS - start))s"
}

# The CLI's own module names modernc.org/sqlite v1.34.1, which left the dev server's store (one in-memory
# connection) interrupted for good when a call's deadline ran out while its query returned rows; v1.40.1, v1.42.2
# and, for in-memory stores, v1.51.0 fixed that. A wrapper module requires the pinned newer driver, and Go's
# version selection builds the CLI with it (test/workflow/dev-server-store.test.ts).
build_temporal() {
  local out=$1 mod="$tools/.temporal-module-$temporal-sqlite-$temporal_sqlite"
  wrapper_module "$mod" temporal 1.25.0 "github.com/temporalio/cli $temporal" "modernc.org/sqlite $temporal_sqlite"
  (cd "$mod" && GOFLAGS="$GOFLAGS -mod=mod" go build -v -o "$out/temporal" \
    -ldflags "-X github.com/temporalio/cli/temporalcli.Version=${temporal#v}" \
    github.com/temporalio/cli/cmd/temporal 2>&1 | progress)
}

build_helm() {
  GOBIN="$1" go install -v \
    -ldflags "-X helm.sh/helm/v4/internal/version.version=$helm -X helm.sh/helm/v4/internal/version.gitTreeState=clean" \
    "helm.sh/helm/v4/cmd/helm@$helm" 2>&1 | progress
}

# etcd's server module replaces its sibling modules with paths, so `go install` refuses it: a wrapper module
# requires all of them at the pinned version instead.
build_etcd() {
  local out=$1 mod="$tools/.etcd-module-$etcd" m requires=()
  for m in server/v3 api/v3 client/pkg/v3 client/v3 pkg/v3; do requires+=("go.etcd.io/etcd/$m $etcd"); done
  wrapper_module "$mod" etcd 1.24 "${requires[@]}"
  (cd "$mod" && GOFLAGS="$GOFLAGS -mod=mod" go build -v -o "$out/etcd" go.etcd.io/etcd/server/v3 2>&1 | progress)
}

# Kubernetes replaces every staging module k8s.io/X with ./staging/src/k8s.io/X; the wrapper module pins each to
# its published v0.<minor>.<patch> instead, and the ldflags make /version and `kubectl version` report the truth.
build_kubernetes() {
  local out=$1 mod="$tools/.kubernetes-module-$k8s"
  local staging="v0.${k8s#v1.}"
  mkdir -p "$mod"
  local gomod
  gomod=$(go mod download -json "k8s.io/kubernetes@$k8s" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).GoMod))')
  {
    echo "module helmflow.local/kubernetes"
    echo "go 1.24.0"
    echo "require k8s.io/kubernetes $k8s"
    grep -oE '^\s*k8s\.io/[a-z0-9-]+ => \./staging/src/k8s\.io/[a-z0-9-]+' "$gomod" |
      awk -v v="$staging" '{print "replace " $1 " => " $1 " " v}'
  } >"$mod/go.mod"
  local minor=${k8s#v1.}
  minor=${minor%%.*}
  local pkg=k8s.io/component-base/version
  local ld="-X $pkg.gitVersion=$k8s -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  ld="$ld -X $pkg.buildDate=1970-01-01T00:00:00Z -X $pkg.gitCommit=helmflow-$k8s"
  local cg=k8s.io/client-go/pkg/version
  ld="$ld -X $cg.gitVersion=$k8s -X $cg.gitMajor=1 -X $cg.gitMinor=$minor -X $cg.gitTreeState=clean"
  for cmd in kube-apiserver kube-controller-manager kubectl; do
    (cd "$mod" && GOFLAGS="$GOFLAGS -mod=mod" go build -v -ldflags "$ld" -o "$out/$cmd" "k8s.io/kubernetes/cmd/$cmd" 2>&1 | progress)
  done
}

# k3s's helm-controller, for the side-by-side benchmark and the k3s adoption test only: helmflow never runs it.
# Its module has no replace directives, so `go install` builds it as published.
build_k3s_helm_controller() {
  GOBIN="$1" go install -v "github.com/k3s-io/helm-controller@$k3s_helm_controller" 2>&1 | progress
}

# go -v names each package as it is compiled; print a count now and then so a long first build shows life.
progress() {
  awk '{ n++; if (n % 100 == 0) { printf "    ... %d packages\n", n; fflush() } } /^go: |: (error|cannot|undefined)/ { print; fflush() }
       END { printf "    %d packages compiled\n", n }'
}

# `tools/build.sh k3s-helm-controller` builds only that test- and bench-only tool: `npm test` asks for it after
# setup (package.json pretest), so a cold test run pays its minutes before the suite and `npm start` never does.
if [ "${1:-}" = k3s-helm-controller ]; then
  build_into k3s-helm-controller "$tools/k3s-helm-controller-$k3s_helm_controller" build_k3s_helm_controller
  exit 0
fi
build_into helm "$tools/helm-$helm" build_helm
build_into temporal "$tools/temporal-$temporal-sqlite-$temporal_sqlite" build_temporal
build_into etcd "$tools/etcd-$etcd" build_etcd
build_into kubernetes "$tools/kubernetes-$k8s" build_kubernetes
echo "helmflow: tools ready in $tools"
