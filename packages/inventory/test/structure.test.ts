import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { kyselyQueriesUnder } from "@anvil/core/testing";

// DESIGN.md: data flows route → service → repository; a route never writes SQL, and a service
// leaves its queries to repositories (it opens transactions, and keeps the rules).

const source = (folder: string) => fileURLToPath(new URL(`../src/${folder}`, import.meta.url));

test("inventory: no route builds or runs a query (services and repositories do)", async () => {
  const found = await kyselyQueriesUnder(source("routes"));
  assert.deepEqual(found, [], `queries in route files:\n${found.join("\n")}`);
});

test("inventory: no web page builds or runs a query (pages call the API's services)", async () => {
  const found = await kyselyQueriesUnder(source("web"));
  assert.deepEqual(found, [], `queries in web files:\n${found.join("\n")}`);
});

/** The services whose queries are in repositories already (issue 19 moves the others' there). */
const QUERY_FREE_SERVICES = [
  "activity-report.ts",
  "checkout.ts",
  "checkouts.ts",
  "counts.ts",
  "files.ts",
  "holdings.ts",
  "images.ts",
  "kits.ts",
  "notifications.ts",
  "requests.ts",
  "seats.ts",
  "selectlists.ts",
  "settings.ts",
  "statuslabel-charts.ts",
  "statuslabels.ts",
  "throttle.ts",
  "tokens.ts",
  "users.ts",
  "webhooks.ts",
];

test("inventory: these services build and run no query of their own (their repositories do)", async () => {
  const found = await kyselyQueriesUnder(source("services"), {
    files: QUERY_FREE_SERVICES,
    transactions: true,
  });
  assert.deepEqual(found, [], `queries in service files:\n${found.join("\n")}`);
});
