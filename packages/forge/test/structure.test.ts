import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { kyselyQueriesUnder } from "@anvil/core/testing";

// DESIGN.md: data flows route → service → repository; a route never writes SQL.

test("forge: no route builds or runs a query (services and repositories do)", async () => {
  const found = await kyselyQueriesUnder(fileURLToPath(new URL("../src/routes", import.meta.url)));
  assert.deepEqual(found, [], `queries in route files:\n${found.join("\n")}`);
});
