#!/usr/bin/env bash
# Builds kube-apiserver, kubectl and etcd from the Go module proxy into a versioned cache outside
# the repository, following ../../../shared/reference/real-control-plane.md §6.
#
# Usage: tools/control-plane/build.sh            # build when missing, print the asset directory
#        KUBELOOM_ASSETS_DIR=/some/dir build.sh  # choose the output directory
#
# The wrapper modules beside this script pin every version (go.mod + go.sum); nothing binary is
# ever written inside the repository. The last line printed is the asset directory, so callers
# can do: KUBEBUILDER_ASSETS=$(tools/control-plane/build.sh | tail -n1)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Keep these two in step with the wrapper modules' go.mod files and with
# packages/testing/src/versions.ts.
K8S_VERSION="1.37.2"
ETCD_VERSION="3.7.3"

CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/kubeloom"
OUT="${KUBELOOM_ASSETS_DIR:-$CACHE_ROOT/kubebuilder-assets/${K8S_VERSION}-etcd${ETCD_VERSION}-linux-amd64}"

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false

log() { echo "[control-plane-assets] $*" >&2; }

if ! command -v go >/dev/null 2>&1; then
  log "error: 'go' is not on PATH. Install Go 1.26.x (https://go.dev/dl) or point"
  log "TEST_ASSET_KUBE_APISERVER / TEST_ASSET_ETCD / KUBEBUILDER_ASSETS at existing binaries."
  exit 1
fi
case "$(go env GOVERSION)" in
  go1.26*|go1.27*|go1.28*) ;;
  *) log "error: Go $(go env GOVERSION) found; kube-apiserver v${K8S_VERSION} needs Go >= 1.26"; exit 1 ;;
esac

mkdir -p "$OUT"

have_version() { # $1 binary, $2 expected substring of its version output
  [[ -x "$1" ]] || return 1
  local out
  # Capture first: piping into `grep -q` or `head` can SIGPIPE the binary, which pipefail reports.
  case "$(basename "$1")" in
    kubectl) out="$("$1" version --client 2>/dev/null)" || return 1 ;;
    *) out="$("$1" --version 2>/dev/null)" || return 1 ;;
  esac
  [[ "$out" == *"$2"* ]]
}

build_etcd() {
  if have_version "$OUT/etcd" "etcd Version: ${ETCD_VERSION}"; then
    log "etcd ${ETCD_VERSION}: cached"
    return
  fi
  log "etcd ${ETCD_VERSION}: building (about 1 minute cold on 2 cores)"
  local start=$SECONDS
  (cd "$HERE/etcd" && go build -trimpath \
    -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=module-v${ETCD_VERSION}" \
    -o "$OUT/etcd.tmp" go.etcd.io/etcd/server/v3)
  mv "$OUT/etcd.tmp" "$OUT/etcd"
  log "etcd ${ETCD_VERSION}: built in $((SECONDS - start)) s"
}

build_kube() { # $1 command name (kube-apiserver | kubectl)
  local name="$1"
  if have_version "$OUT/$name" "v${K8S_VERSION}"; then
    log "$name v${K8S_VERSION}: cached"
    return
  fi
  log "$name v${K8S_VERSION}: building (measured cold on 2 cores: kube-apiserver about 4 minutes, kubectl under 1 minute after it)"
  local start=$SECONDS minor
  minor="$(echo "$K8S_VERSION" | cut -d. -f2)"
  local ldf="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf+=" -X $pkg.gitVersion=v${K8S_VERSION} -X $pkg.gitMajor=1 -X $pkg.gitMinor=${minor}"
    ldf+=" -X $pkg.gitTreeState=clean -X $pkg.gitCommit=module-v${K8S_VERSION}"
    ldf+=" -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  (cd "$HERE/kube" && go build -trimpath -tags selinux,notest,grpcnotrace \
    -ldflags "$ldf" -o "$OUT/$name.tmp" "k8s.io/kubernetes/cmd/$name")
  mv "$OUT/$name.tmp" "$OUT/$name"
  log "$name v${K8S_VERSION}: built in $((SECONDS - start)) s"
}

build_etcd
build_kube kube-apiserver
build_kube kubectl

etcd_version="$("$OUT/etcd" --version)"
echo "${etcd_version%%$'\n'*}" >&2
"$OUT/kube-apiserver" --version >&2
echo "$OUT"
