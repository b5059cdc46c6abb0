#!/usr/bin/env bash
# Builds kube-apiserver, kubectl and etcd from the Go module proxy into a versioned cache outside
# any repository (envtest-style; no download, no Docker). Run it through the package's bin, which
# chooses the directory (the one @kubeloom/testing looks in) and the target OS/arch:
#
#   npx kubeloom-testing assets     # in the kubeloom repository: pnpm control-plane:assets
#
# Environment (set by the bin): KUBELOOM_ASSETS_DIR, the output directory; GOOS and GOARCH.
# The wrapper modules beside this script (kube/, etcd/) pin every version (go.mod + go.sum);
# nothing is written beside them. Binaries already built at these versions are kept, and then
# Go is not needed. Progress goes to stderr; the only line on stdout is the asset directory.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Keep these two in step with the wrapper modules' go.mod files and with src/versions.ts
# (src/cli.test.ts checks it).
K8S_VERSION="1.37.2"
ETCD_VERSION="3.7.3"

log() { echo "[control-plane-assets] $*" >&2; }

if [[ -z "${KUBELOOM_ASSETS_DIR:-}" ]]; then
  log "error: KUBELOOM_ASSETS_DIR is not set. Run this recipe through \`npx kubeloom-testing assets\`"
  log "(in the kubeloom repository: \`pnpm control-plane:assets\`), which sets it."
  exit 2
fi
OUT="$KUBELOOM_ASSETS_DIR"
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

GO_CHECKED=0
need_go() { # only a build needs Go; cached binaries do not
  [[ $GO_CHECKED -eq 1 ]] && return
  if ! command -v go >/dev/null 2>&1; then
    log "error: 'go' is not on PATH, and $OUT lacks binaries to build. Install Go 1.26 or newer"
    log "(https://go.dev/dl), or point TEST_ASSET_KUBE_APISERVER / TEST_ASSET_ETCD / KUBEBUILDER_ASSETS"
    log "at existing envtest binaries instead."
    exit 1
  fi
  case "$(go env GOVERSION)" in
    go1.26*|go1.27*|go1.28*) ;;
    *) log "error: Go $(go env GOVERSION) found; kube-apiserver v${K8S_VERSION} needs Go >= 1.26"; exit 1 ;;
  esac
  export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false
  GO_CHECKED=1
}

build_etcd() {
  if have_version "$OUT/etcd" "etcd Version: ${ETCD_VERSION}"; then
    log "etcd ${ETCD_VERSION}: cached"
    return
  fi
  need_go
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
  need_go
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
