#!/usr/bin/env bash
# The test command (npm test): every packages/*/test/**/*.test.ts file, or the files given.
# DB tests run on SQLite, and on PostgreSQL too when TEST_PG_URL is set (TEST_DB_ONLY=sqlite|postgres
# narrows them to one).
set -euo pipefail
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/runtime.sh"
anvil_prepare
cd "$ANVIL_ROOT"
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(find packages -name node_modules -prune -o -path '*/test/*' -name '*.test.ts' -print | sort)
fi
if [ -n "${TEST_PG_URL:-}" ]; then
  "$ANVIL_NODE" scripts/drop-abandoned-test-databases.ts
fi
exec "$ANVIL_NODE" --test --test-concurrency="${ANVIL_TEST_CONCURRENCY:-4}" "${files[@]}"
