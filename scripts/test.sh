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
  # The files that take longest start first, so that none of them is left running alone at the end
  # while the other workers idle; the rest follow in name order.
  slowest=(
    packages/inventory/test/api/imports-scale.test.ts
    packages/forge/test/api/webhook-delivery.test.ts
    packages/cli/test/inventory-import.test.ts
    packages/forge/test/api/crash-safety.test.ts
    packages/forge/test/fuzz/api.test.ts
    packages/forge/test/api/pull-merge.test.ts
  )
  files=()
  for file in "${slowest[@]}"; do [ -f "$file" ] && files+=("$file"); done
  mapfile -t -O "${#files[@]}" files < <(find packages -name node_modules -prune -o -path '*/test/*' -name '*.test.ts' -print |
    sort | grep -vxF -f <(printf '%s\n' "${slowest[@]}"))
  # The web pages are tested in Debian's chromium (.ci/run installs it). Without it they are skipped
  # on a developer's machine, as the side-by-side hook tests are without webhook; in CI they run, and
  # fail, since its absence there is a broken setup.
  if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] && [ "${CI:-}" != "true" ]; then
    echo "test: ${CHROMIUM_PATH:-/usr/bin/chromium} not found: skipping the web page tests (apt-get install chromium)" >&2
    mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -v '/test/web/')
  fi
fi
# Every test process and every service it starts compiles the same modules: Node keeps their
# compiled code between processes here (about a quarter of a process's start-up).
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$ANVIL_ROOT/tmp/compile-cache}"
if [ -n "${TEST_PG_URL:-}" ]; then
  "$ANVIL_NODE" scripts/drop-abandoned-test-databases.ts
fi
exec "$ANVIL_NODE" --test --test-concurrency="${ANVIL_TEST_CONCURRENCY:-4}" "${files[@]}"
