#!/usr/bin/env bash
# Runs a script of the project with the project's Node (npm scripts call this).
set -euo pipefail
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/runtime.sh"
anvil_prepare
cd "$ANVIL_ROOT"
exec "$ANVIL_NODE" "$@"
