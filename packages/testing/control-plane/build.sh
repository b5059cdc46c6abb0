#!/usr/bin/env bash
# Builds the control-plane binaries from the Go module proxy into a versioned cache outside any
# repository (envtest-style; no download, no Docker): etcd, kube-apiserver and kubectl (the lean
# plane), kube-controller-manager and kube-scheduler (same Kubernetes module and version) and kwok
# (simulated nodes) for the plane that runs workloads. Run it through the package's bin, which
# chooses the directory (the one @kubeloom/testing looks in) and the target OS/arch:
#
#   npx kubeloom-testing assets            # everything; in the kubeloom repository: pnpm control-plane:assets
#   npx kubeloom-testing assets --lean     # etcd, kube-apiserver and kubectl only
#
# Arguments: the binaries to build (default: all six). Environment (set by the bin):
# KUBELOOM_ASSETS_DIR, the output directory; GOOS and GOARCH.
# The wrapper modules beside this script (kube/, etcd/, kwok/) pin every version (go.mod + go.sum);
# nothing is written beside them. Binaries already built at these versions are kept, and then
# Go is not needed. The Kubernetes binaries missing are built in one `go build`, so the packages
# they share compile once. Progress goes to stderr; the only line on stdout is the asset directory.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Keep these two in step with the wrapper modules' go.mod files and with src/versions.ts
# (src/cli.test.ts checks it).
K8S_VERSION="1.37.2"
ETCD_VERSION="3.7.3"
KWOK_VERSION="0.8.0"

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

kube_ldflags() {
  local minor ldf="-s -w"
  minor="$(echo "$K8S_VERSION" | cut -d. -f2)"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf+=" -X $pkg.gitVersion=v${K8S_VERSION} -X $pkg.gitMajor=1 -X $pkg.gitMinor=${minor}"
    ldf+=" -X $pkg.gitTreeState=clean -X $pkg.gitCommit=module-v${K8S_VERSION}"
    ldf+=" -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$ldf"
}

build_kube() { # $@ command names (kube-apiserver, kubectl, kube-controller-manager, kube-scheduler)
  local missing=() name
  for name in "$@"; do
    if have_version "$OUT/$name" "v${K8S_VERSION}"; then
      log "$name v${K8S_VERSION}: cached"
    else
      missing+=("$name")
    fi
  done
  [[ ${#missing[@]} -eq 0 ]] && return
  need_go
  log "${missing[*]} v${K8S_VERSION}: building in one go (measured cold on 2 cores: kube-apiserver" \
    "about 4 minutes; all four about 8 minutes, idle)"
  local start=$SECONDS pkgs=()
  for name in "${missing[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$name"); done
  BUILD_TMP="$(mktemp -d "$OUT/.build.XXXXXX")"
  trap 'rm -rf "$BUILD_TMP"' EXIT
  # With several packages, `-o` names a directory and each binary is written into it.
  (cd "$HERE/kube" && go build -trimpath -tags selinux,notest,grpcnotrace \
    -ldflags "$(kube_ldflags)" -o "$BUILD_TMP/" "${pkgs[@]}")
  for name in "${missing[@]}"; do mv "$BUILD_TMP/$name" "$OUT/$name"; done
  rm -rf "$BUILD_TMP"
  trap - EXIT
  log "${missing[*]} v${K8S_VERSION}: built in $((SECONDS - start)) s"
}

build_kwok() {
  if have_version "$OUT/kwok" "${KWOK_VERSION}"; then
    log "kwok v${KWOK_VERSION}: cached"
    return
  fi
  need_go
  log "kwok v${KWOK_VERSION}: building (about 1.5 minutes cold on an idle 2-core machine)"
  local start=$SECONDS
  (cd "$HERE/kwok" && go build -trimpath \
    -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=v${KWOK_VERSION}" \
    -o "$OUT/kwok.tmp" sigs.k8s.io/kwok/cmd/kwok)
  mv "$OUT/kwok.tmp" "$OUT/kwok"
  log "kwok v${KWOK_VERSION}: built in $((SECONDS - start)) s"
}

ALL=(etcd kube-apiserver kubectl kube-controller-manager kube-scheduler kwok)
WANTED=("$@")
[[ ${#WANTED[@]} -eq 0 ]] && WANTED=("${ALL[@]}")
KUBE=()
for name in "${WANTED[@]}"; do
  case "$name" in
    etcd | kwok) ;;
    kube-apiserver | kubectl | kube-controller-manager | kube-scheduler) KUBE+=("$name") ;;
    *) log "error: unknown binary \"$name\"; known: ${ALL[*]}"; exit 2 ;;
  esac
done
wanted() { [[ " ${WANTED[*]} " == *" $1 "* ]]; }

wanted etcd && build_etcd
[[ ${#KUBE[@]} -gt 0 ]] && build_kube "${KUBE[@]}"
wanted kwok && build_kwok

for name in "${WANTED[@]}"; do
  case "$name" in
    kubectl) out="kubectl $("$OUT/kubectl" version --client 2>/dev/null)" ;;
    *) out="$("$OUT/$name" --version 2>&1)" ;;
  esac
  echo "${out%%$'\n'*}" >&2
done
echo "$OUT"
