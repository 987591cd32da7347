// Inventory speed: the hardware API (and the asset list's web page, (o)) of `anvil inventory serve`
// (its own process) on 100,000 assets over 1,000 models, 200 locations and 5,000 users, against a
// reference measured in the same run.
// Run with `scripts/run-node.sh bench/inventory.ts` (or `npm run bench:inventory`).
// Environment: BENCH_SECONDS (10), BENCH_RUNS (3), BENCH_CONNECTIONS (32), BENCH_OUT (JSON path),
// BENCH_DATABASE (postgres://… to run on PostgreSQL; SQLite by default), BENCH_INVENTORY_NODE_OPTIONS
// (NODE_OPTIONS of the inventory process only, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"),
// BENCH_SCENARIOS (letters of the scenarios to run, e.g. "be"; all by default).
// The same file also runs the reference server, in a process of its own:
// `inventory.ts --reference <database-url> <port>`; `inventory.ts --seed <database-url>` only
// seeds a database (migrating it first) and keeps it, to profile a server by hand.
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { connectDatabase, migrate, parseDatabaseUrl, toStoredTime } from "@anvil/core";
import { freePort } from "@anvil/core/testing";
import { sql } from "kysely";
import { migrations } from "../packages/inventory/src/migrations/index.ts";
import type { InventoryTables } from "../packages/inventory/src/schemas/tables.ts";
import {
  benchStore,
  checkTarget,
  hasWrk,
  headerObject,
  insertAll,
  type LoadPlan,
  measureAlternately,
  memoryOf,
  type Running,
  type Summary,
  serveReference,
  startProcess,
  startSelf,
  summarize,
  type Target,
} from "./load.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");
const seconds = Number(process.env.BENCH_SECONDS || 10);
const runs = Number(process.env.BENCH_RUNS || 3);
const connections = Number(process.env.BENCH_CONNECTIONS || 32);
const outFile = process.env.BENCH_OUT || path.join(root, "tmp/bench/inventory.json");
const inventoryNodeOptions = process.env.BENCH_INVENTORY_NODE_OPTIONS;
const chosenScenarios = process.env.BENCH_SCENARIOS || "abcdefghijklmno";

const ASSETS = 100_000;
const MODELS = 1000;
const LOCATIONS = 200;
const USERS = 5000;
const CATEGORIES = 20;
const MANUFACTURERS = 50;
/** The deep page of the list: with 3% of the assets archived (hidden), 97,000 are listed. */
const DEEP_OFFSET = 90_000;
/** Assets asked for by id and by tag (every tenth is checked before the runs). */
const LOOKUPS = 10_000;
/** Assets each wrk thread checks out and in, and how many check-outs its check-ins lag behind. */
const POOL_PER_THREAD = 1000;
const CHECKIN_LAG = 100;
const WRK_THREADS = 2;
/** Asset names are a word and a number, so each word of a search finds a twentieth of them. */
const WORDS = [
  "atlas",
  "beacon",
  "cobalt",
  "delta",
  "ember",
  "falcon",
  "garnet",
  "harbor",
  "indigo",
  "juniper",
  "kestrel",
  "lumen",
  "meadow",
  "nimbus",
  "onyx",
  "prairie",
  "quartz",
  "raven",
  "sierra",
  "tundra",
];
/**
 * Sortable asset columns (spec §4) the sorted lists spread over, each ascending and descending: the
 * asset's own and the related rows' names. In `orderFree`, those whose order is the same in any
 * collation (numbers, dates, fixed-width tags), which the check compares on PostgreSQL too.
 */
const SORTED = [
  "id",
  "name",
  "asset_tag",
  "serial",
  "order_number",
  "purchase_date",
  "purchase_cost",
  "created_at",
  "updated_at",
  "last_checkout",
  "model",
  "model_number",
  "category",
  "manufacturer",
  "location",
  "status_label",
  "assigned_to",
];
const timed = new Set(["created_at", "updated_at", "last_checkout"]);
const orderFree = new Set(["id", "asset_tag", "purchase_date", "purchase_cost", "created_at", "updated_at"]);
const ADMIN = { username: "bench-admin", password: "bench-password", email: "bench-admin@example.com" };

export interface Seeded {
  /** Status label ids, the archived one last. */
  labels: number[];
  modelIds: number[];
  locationIds: number[];
  /** What the lists without a status filter count (archived assets are hidden): all, per model. */
  listed: { all: number; perModel: Record<number, number> };
  /** Assets per status label, the archived one included. */
  perLabel: Record<number, number>;
  /** Ids and tags of LOOKUPS assets spread over the table. */
  lookups: { id: number; tag: string }[];
  /** Per wrk thread, POOL_PER_THREAD deployable assets to check out and in. */
  pools: number[][];
  userIds: number[];
  seconds: number;
  rows: Record<string, number>;
}

interface Scenario {
  letter: string;
  name: string;
  target: Target;
  check: (body: unknown, path: string) => boolean;
  /** Every how many paths one is checked before the runs (10 by default). */
  checkStep?: number;
  connections: number;
}

interface Row {
  scenario: string;
  /** The first request; with wrk each request picks one of `paths` at random. */
  example: string;
  paths: number;
  connections: number;
  inventory: Summary;
  reference: Summary;
  /** The inventory's VmHWM once this scenario's runs are done: the peak since it started. */
  inventoryPeakRssKb: number;
}

async function main(): Promise<void> {
  const tool = (await hasWrk()) ? "wrk" : "autocannon";
  const store = await benchStore("inventory", "inventory.db");
  const { work, dataDir, databaseUrl } = store;
  const servers: Running[] = [];
  try {
    const dialect = parseDatabaseUrl(databaseUrl).dialect;
    const loadBefore = os.loadavg();
    console.error(
      `inventory bench: seeding ${dialect} (${ASSETS} assets, ${MODELS} models, ${LOCATIONS} locations, ${USERS} users)`,
    );
    const seeded = await seed(databaseUrl);
    console.error(`  seeded in ${seeded.seconds.toFixed(1)} s`);
    const token = await superuserToken(dataDir, databaseUrl);

    const inventory = await startInventory(dataDir, databaseUrl, inventoryNodeOptions);
    servers.push(inventory);
    const cookie = await signedInCookie(inventory.base);
    const reference = await startSelf(import.meta.filename, "reference", ["--reference", databaseUrl]);
    servers.push(reference);
    const startRssKb = (await memoryOf(inventory.pid)).rssKb;

    const spread = tool === "wrk";
    const plan: LoadPlan = { tool, spread, work, seconds, runs };
    const scenarios = scenariosOf(seeded, inventory.base, token, cookie, databaseUrl).filter((s) =>
      chosenScenarios.includes(s.letter),
    );
    const referenceTarget: Target = {
      base: reference.base,
      paths: seeded.lookups.map((asset) => `/assets/${asset.id}`),
      headers: [],
    };
    await checkTarget(referenceTarget, (body) => typeof (body as { id?: unknown }).id === "number");
    console.error(
      `  ${tool}, ${seconds} s, ${runs} run(s) per scenario and server, ${spread ? "requests spread over the paths" : "one fixed path per scenario"}`,
    );

    const rows: Row[] = [];
    for (const scenario of scenarios) {
      if (scenario.target.script === undefined)
        await checkTarget(scenario.target, scenario.check, scenario.checkStep);
      else if (tool !== "wrk") {
        console.error(`  ${scenario.name}: skipped, it needs wrk`);
        continue;
      }
      const [inventoryRuns, referenceRuns] = await measureAlternately(
        plan,
        scenario.name,
        scenario.connections,
        [
          { name: "inventory", target: scenario.target },
          { name: "reference", target: referenceTarget },
        ],
      );
      rows.push({
        scenario: scenario.name,
        example: scenario.target.paths[0],
        paths: spread ? scenario.target.paths.length : 1,
        connections: scenario.connections,
        inventory: summarize(inventoryRuns),
        reference: summarize(referenceRuns),
        inventoryPeakRssKb: (await memoryOf(inventory.pid)).hwmKb,
      });
    }

    const result = {
      date: new Date().toISOString(),
      tool,
      database: dialect,
      seconds,
      runs,
      cpus: os.availableParallelism(),
      loadAverageBefore: loadBefore,
      seeding: { seconds: seeded.seconds, rows: seeded.rows },
      inventoryStartRssKb: startRssKb,
      scenarios: rows,
    };
    console.log(report(result));
    await mkdir(path.dirname(outFile), { recursive: true });
    await writeFile(outFile, `${JSON.stringify(result, null, 2)}\n`);
    console.error(`written to ${outFile}`);
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await store.remove();
  }
}

// --- scenarios -----------------------------------------------------------------------------------

function scenariosOf(
  seeded: Seeded,
  base: string,
  token: string,
  cookie: string,
  databaseUrl: string,
): Scenario[] {
  const headers = [`Authorization: Bearer ${token}`, "Accept: application/json"];
  const list = (paths: string[]): Target => ({ base, paths, headers });
  const page = (body: unknown) => {
    const { total, rows } = body as { total?: number; rows?: unknown[] };
    return typeof total === "number" && total > 0 && rows?.length === Math.min(50, total);
  };
  const asked = (path: string, name: string) => Number(new URL(path, base).searchParams.get(name));
  /** A page whose total is the exact count of the assets asked for (seed). */
  const counted = (expected: (path: string) => number | undefined) => (body: unknown, path: string) =>
    page(body) && (body as { total: number }).total === expected(path);
  const asset = (body: unknown) => typeof (body as { asset_tag?: unknown }).asset_tag === "string";
  const filtered = {
    status: seeded.labels.map((id) => `/api/v1/hardware?limit=50&status_id=${id}`),
    model: seeded.modelIds.map((id) => `/api/v1/hardware?limit=50&model_id=${id}`),
    location: seeded.locationIds.map((id) => `/api/v1/hardware?limit=50&location_id=${id}`),
    sorted: SORTED.flatMap((column) =>
      ["asc", "desc"].map((order) => `/api/v1/hardware?limit=50&sort=${column}&order=${order}`),
    ),
  };
  const byStatus = counted((path) => seeded.perLabel[asked(path, "status_id")]);
  const byModel = counted((path) => seeded.listed.perModel[asked(path, "model_id")]);
  // Check-outs (h) move assets to their holder's location, so a location's total is not the
  // seed's: every asset listed must be at the location asked for.
  const byLocation = (body: unknown, path: string) =>
    page(body) &&
    (body as { rows: { location: { id: number } | null }[] }).rows.every(
      (row) => row.location?.id === asked(path, "location_id"),
    );
  const sorted = (body: unknown, path: string) => {
    const query = new URL(path, base).searchParams;
    const column = query.get("sort") ?? "";
    const rows = (body as { rows?: Record<string, unknown>[] }).rows ?? [];
    if (!counted(() => seeded.listed.all)(body, path)) return false;
    // SQLite compares text byte by byte, as JavaScript does ASCII; PostgreSQL by its collation.
    if (databaseUrl.startsWith("postgres") && !orderFree.has(column)) return true;
    const direction = query.get("order") === "asc" ? 1 : -1;
    return rows.every((row, i) => {
      if (i === 0) return true;
      const [before, key] = [sortKey(rows[i - 1], column), sortKey(row, column)];
      // Times show whole seconds: assets written in the same second (h) are in their stored order.
      if (before === key)
        return timed.has(column) || (Number(rows[i - 1].id) - Number(row.id)) * direction < 0;
      return (before < key ? -1 : 1) * direction < 0;
    });
  };
  return [
    {
      letter: "a",
      name: "(a) list of 50",
      target: list(["/api/v1/hardware?limit=50"]),
      check: counted(() => seeded.listed.all),
      connections,
    },
    {
      letter: "b",
      name: "(b) list of 50, status_id=",
      target: list(filtered.status),
      check: byStatus,
      connections,
    },
    {
      letter: "c",
      name: "(c) list of 50, model_id=",
      target: list(filtered.model),
      check: byModel,
      connections,
    },
    {
      letter: "d",
      name: "(d) list of 50, search=",
      target: list(WORDS.map((word) => `/api/v1/hardware?limit=50&search=${word}`)),
      check: page,
      connections,
    },
    {
      letter: "e",
      name: `(e) list of 50, offset=${DEEP_OFFSET}`,
      target: list([`/api/v1/hardware?limit=50&offset=${DEEP_OFFSET}`]),
      check: (body) => (body as { rows?: unknown[] }).rows?.length === 50,
      connections,
    },
    {
      letter: "f",
      name: "(f) GET /hardware/{id}",
      target: list(seeded.lookups.map((a) => `/api/v1/hardware/${a.id}`)),
      check: asset,
      connections,
    },
    {
      letter: "g",
      name: "(g) GET /hardware/bytag/{tag}",
      target: list(seeded.lookups.map((a) => `/api/v1/hardware/bytag/${a.tag}`)),
      check: asset,
      connections,
    },
    {
      letter: "h",
      name: "(h) check-out + check-in",
      target: {
        ...list(["/api/v1/hardware"]),
        script: checkoutScript(seeded),
        reset: () => prepareCheckouts(seeded, databaseUrl, base, headers),
      },
      check: () => true,
      connections,
    },
    {
      letter: "i",
      name: "(i) list of 50, status_id=, 4 connections",
      target: list(filtered.status),
      check: byStatus,
      connections: 4,
    },
    {
      letter: "j",
      name: "(j) list of 50, model_id=, 4 connections",
      target: list(filtered.model),
      check: byModel,
      connections: 4,
    },
    {
      letter: "k",
      name: "(k) list of 50, location_id=",
      target: list(filtered.location),
      check: byLocation,
      connections,
    },
    {
      letter: "l",
      name: "(l) list of 50, sort= order=",
      target: list(filtered.sorted),
      check: sorted,
      checkStep: 1,
      connections,
    },
    {
      letter: "m",
      name: "(m) list of 50, location_id=, 4 connections",
      target: list(filtered.location),
      check: byLocation,
      connections: 4,
    },
    {
      letter: "n",
      name: "(n) list of 50, sort= order=, 4 connections",
      target: list(filtered.sorted),
      check: sorted,
      checkStep: 1,
      connections: 4,
    },
    {
      letter: "o",
      name: "(o) web page /hardware of 50, 4 connections",
      // What a person's browser asks: the whole page, signed in by the session cookie; unfiltered,
      // by status and sorted.
      target: {
        base,
        paths: [
          "/hardware?limit=50",
          ...seeded.labels.map((id) => `/hardware?limit=50&status_id=${id}`),
          ...["name", "asset_tag", "model", "location"].map(
            (column) => `/hardware?limit=50&sort=${column}&order=asc`,
          ),
        ],
        headers: [`Cookie: ${cookie}`, "Accept: text/html"],
      },
      check: (body) => typeof body === "string" && (body.match(/<tr>/g) ?? []).length === 51,
      checkStep: 1,
      connections: 4,
    },
  ];
}

/** What an asset object of the API shows of the column a list is sorted by; null sorts first. */
function sortKey(row: Record<string, unknown>, column: string): string | number {
  const value = row[column];
  if (value === null || value === undefined) return "";
  if (column === "id") return Number(value);
  if (column === "purchase_cost") return Number(String(value).replaceAll(",", ""));
  if (typeof value !== "object") return String(value);
  const shown = value as Record<string, unknown>;
  return String(shown.datetime ?? shown.date ?? shown.name);
}

/**
 * wrk's script for check-out + check-in pairs. Each thread works on a pool of assets of its own,
 * of which the first CHECKIN_LAG are checked out when it starts (prepareCheckouts); it alternates
 * checking in the one it has held longest and checking out the next, so an asset is checked in
 * 2 x CHECKIN_LAG requests of its thread after its check-out (long done: a thread has 16
 * connections), and checked out again only once the whole pool came round. An answer other than
 * 200 with `"status":"success"` counts as a failure.
 */
function checkoutScript(seeded: Seeded): string {
  return `
local pools = {${seeded.pools.map((pool) => `{${pool.join(",")}}`).join(",")}}
local users = {${seeded.userIds.slice(0, 1000).join(",")}}
local lag = ${CHECKIN_LAG}
local made = 0
local threads = {}

function setup(thread)
  thread:set("index", made + 1)
  made = made + 1
  table.insert(threads, thread)
end

function init(args)
  pool = pools[index]
  step = 0
  failures = 0
  posted = {}
  for name, value in pairs(wrk.headers) do posted[name] = value end
  posted["Content-Type"] = "application/json"
end

function request()
  local n = step
  step = step + 1
  local slot, action, body
  if n % 2 == 0 then
    slot, action = n / 2, "checkin"
  else
    slot, action = lag + (n - 1) / 2, "checkout"
  end
  local asset = pool[slot % #pool + 1]
  if action == "checkout" then
    body = '{"checkout_to_type":"user","assigned_user":' .. users[slot % #users + 1] .. '}'
  else
    body = '{"note":"bench"}'
  end
  return wrk.format("POST", "/api/v1/hardware/" .. asset .. "/" .. action, posted, body)
end

function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"status":"success"', 1, true) then
    failures = failures + 1
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("failures") end
  io.write("failures " .. total .. "\\n")
end
`;
}

/**
 * Brings the pools to the state checkoutScript starts from, through the API: the first
 * CHECKIN_LAG assets of each checked out, the others checked in. Run before each run, once the
 * server is done with the requests the previous run left in flight.
 */
async function prepareCheckouts(seeded: Seeded, databaseUrl: string, base: string, headers: string[]) {
  await sleep(1000);
  const database = await connectDatabase<InventoryTables>(databaseUrl);
  let out: Set<number>;
  try {
    const rows = await database.db
      .selectFrom("assets")
      .select("id")
      .where("id", "in", seeded.pools.flat())
      .where("assigned_to", "is not", null)
      .execute();
    out = new Set(rows.map((row) => Number(row.id)));
  } finally {
    await database.close();
  }
  const changes = seeded.pools.flatMap((pool) =>
    pool.flatMap((id, slot) => {
      if (slot < CHECKIN_LAG && !out.has(id))
        return [
          { id, action: "checkout", body: { checkout_to_type: "user", assigned_user: seeded.userIds[slot] } },
        ];
      return slot >= CHECKIN_LAG && out.has(id) ? [{ id, action: "checkin", body: {} }] : [];
    }),
  );
  for (const { id, action, body } of changes) {
    const response = await fetch(`${base}/api/v1/hardware/${id}/${action}`, {
      method: "POST",
      headers: { ...headerObject(headers), "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!text.includes('"status":"success"')) throw new Error(`${action} of asset ${id}: ${text}`);
  }
}

// --- seeding -------------------------------------------------------------------------------------

/**
 * Fills a migrated database by bulk inserts, one transaction a table: the catalogue (manufacturers,
 * categories, models), a fourth status label, locations, users and assets. Of the assets, 70% are
 * ready to deploy (a third of those checked out to a user), 12% pending, 15% broken
 * (undeployable) and 3% archived; each has its own created_at, one second after the previous.
 */
export async function seed(databaseUrl: string): Promise<Seeded> {
  const started = performance.now();
  const database = await connectDatabase<InventoryTables>(databaseUrl);
  try {
    const db = database.db;
    await migrate(db, "inventory", migrations);
    const now = toStoredTime(new Date(), database.dialect);
    const stamps = { created_at: now, updated_at: now };
    const insert = <T extends keyof InventoryTables & string>(
      table: T,
      rows: Parameters<typeof insertAll<InventoryTables, T>>[2],
    ) => db.transaction().execute((trx) => insertAll(trx, table, rows));
    const idsOf = async (table: "manufacturers" | "categories" | "models" | "locations" | "users") =>
      (await db.selectFrom(table).select("id").orderBy("id").execute()).map((row) => Number(row.id));

    await insert(
      "manufacturers",
      Array.from({ length: MANUFACTURERS }, (_, i) => ({ name: `Maker ${i + 1}`, ...stamps })),
    );
    await insert(
      "categories",
      Array.from({ length: CATEGORIES }, (_, i) => ({
        name: `Category ${i + 1}`,
        category_type: "asset",
        ...stamps,
      })),
    );
    const [manufacturers, categories] = [await idsOf("manufacturers"), await idsOf("categories")];
    await insert(
      "models",
      Array.from({ length: MODELS }, (_, i) => ({
        name: `Model ${i + 1}`,
        model_number: `MN-${1000 + i}`,
        category_id: categories[i % CATEGORIES],
        manufacturer_id: manufacturers[i % MANUFACTURERS],
        eol: 36,
        ...stamps,
      })),
    );
    await insert("status_labels", [
      { name: "Broken", deployable: false, pending: false, archived: false, ...stamps },
    ]);
    await insert(
      "locations",
      Array.from({ length: LOCATIONS }, (_, i) => ({
        name: `Site ${i + 1}`,
        city: `City ${i % 40}`,
        ...stamps,
      })),
    );
    const locations = await idsOf("locations");
    await insert(
      "users",
      Array.from({ length: USERS }, (_, i) => ({
        first_name: `First${i + 1}`,
        last_name: `Last${i + 1}`,
        username: `user${i + 1}`,
        email: `user${i + 1}@example.com`,
        employee_num: `E${i + 1}`,
        location_id: locations[i % LOCATIONS],
        ...stamps,
      })),
    );
    const [models, users] = [await idsOf("models"), await idsOf("users")];
    const label = async (name: string) =>
      Number(
        (await db.selectFrom("status_labels").select("id").where("name", "=", name).executeTakeFirstOrThrow())
          .id,
      );
    const labels = {
      ready: await label("Ready to Deploy"),
      pending: await label("Pending"),
      broken: await label("Broken"),
      archived: await label("Archived"),
    };
    const firstCreated = Date.UTC(2023, 0, 1);
    const assets = Array.from({ length: ASSETS }, (_, i) => {
      const share = i % 100;
      const status =
        share < 70
          ? labels.ready
          : share < 82
            ? labels.pending
            : share < 97
              ? labels.broken
              : labels.archived;
      const holder = status === labels.ready && i % 3 === 0 ? users[(i * 13) % USERS] : null;
      const location = locations[(i * 7) % LOCATIONS];
      const created = toStoredTime(new Date(firstCreated + i * 1000), database.dialect);
      const bought = new Date(firstCreated - (i % 1000) * 86_400_000).toISOString().slice(0, 10);
      return {
        name: `${WORDS[i % WORDS.length]} ${i + 1}`,
        asset_tag: `AT-${String(i + 1).padStart(6, "0")}`,
        serial: `SN${String((i * 7919) % 1_000_003).padStart(7, "0")}-${i + 1}`,
        model_id: models[(i * 37) % MODELS],
        status_id: status,
        location_id: location,
        rtd_location_id: location,
        purchase_date: bought,
        purchase_cost: `${100 + (i % 2000)}.00`,
        order_number: `PO-${Math.floor(i / 50)}`,
        warranty_months: 36,
        assigned_to: holder,
        assigned_type: holder === null ? null : "user",
        last_checkout: holder === null ? null : created,
        checkout_counter: holder === null ? 0 : 1,
        created_at: created,
        updated_at: created,
      };
    });
    await insert("assets", assets);
    // What autovacuum does soon after such a load on PostgreSQL: statistics for the planner and
    // the visibility map that lets it answer from an index alone. (SQLite keeps no statistics
    // unless asked, and the inventory never asks.)
    if (database.dialect === "postgres") await sql`vacuum analyze`.execute(db);

    const rows = await db
      .selectFrom("assets")
      .select(["id", "asset_tag", "status_id", "assigned_to"])
      .orderBy("id")
      .execute();
    const step = Math.floor(ASSETS / LOOKUPS);
    const free = rows.filter((row) => row.status_id === labels.ready && row.assigned_to === null);
    const counts: Record<string, number> = {};
    for (const table of ["assets", "models", "locations", "users", "status_labels"] as const) {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      counts[table] = Number(row.n);
    }
    const listed = { all: 0, perModel: {} as Record<number, number> };
    const perLabel: Record<number, number> = {};
    for (const asset of assets) {
      perLabel[asset.status_id] = (perLabel[asset.status_id] ?? 0) + 1;
      if (asset.status_id === labels.archived) continue;
      listed.all++;
      listed.perModel[asset.model_id] = (listed.perModel[asset.model_id] ?? 0) + 1;
    }
    return {
      labels: [labels.ready, labels.pending, labels.broken, labels.archived],
      modelIds: models,
      locationIds: locations,
      listed,
      perLabel,
      lookups: rows
        .filter((_, i) => i % step === 0)
        .map((row) => ({ id: Number(row.id), tag: row.asset_tag })),
      // Spread over the table: every 20th free asset.
      pools: Array.from({ length: WRK_THREADS }, (_, t) =>
        free
          .filter((_, i) => i % 20 === 0)
          .slice(t * POOL_PER_THREAD, (t + 1) * POOL_PER_THREAD)
          .map((row) => Number(row.id)),
      ),
      userIds: users,
      seconds: (performance.now() - started) / 1000,
      rows: counts,
    };
  } finally {
    await database.close();
  }
}

/** `anvil inventory serve` on a free port, in a process of its own, unthrottled. */
export async function startInventory(
  dataDir: string,
  databaseUrl: string,
  nodeOptions: string | undefined,
): Promise<Running> {
  const port = await freePort();
  return startProcess(
    "inventory",
    path.join(root, "bin/anvil"),
    port,
    [
      "inventory",
      "serve",
      "--data-dir",
      dataDir,
      "--database",
      databaseUrl,
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--log-level",
      "warn",
      // Snipe-IT's 120 requests a minute per user would turn the bench into a 429 bench.
      "--api-throttle-per-minute",
      "0",
    ],
    nodeOptions ? { NODE_OPTIONS: nodeOptions } : {},
  );
}

/** A superuser and a token of theirs, made with the CLI as an administrator would. */
export async function superuserToken(dataDir: string, databaseUrl: string): Promise<string> {
  const anvil = path.join(root, "bin/anvil");
  const where = ["--data-dir", dataDir, "--database", databaseUrl];
  await run(anvil, [
    "inventory",
    "admin",
    "user",
    "create",
    ...where,
    "--username",
    ADMIN.username,
    "--password",
    ADMIN.password,
    "--email",
    ADMIN.email,
    "--superuser",
  ]);
  const { stdout } = await run(anvil, [
    "inventory",
    "admin",
    "token",
    "create",
    ...where,
    "--username",
    ADMIN.username,
    "--name",
    "bench",
  ]);
  // The secret is alone on the last line.
  return stdout.trim().split("\n").at(-1) ?? "";
}

/** The bench admin signed in through the login form, as a browser does: the session's Cookie value. */
async function signedInCookie(base: string): Promise<string> {
  const form = await fetch(`${base}/login`);
  const visitor = form.headers.getSetCookie().map((cookie) => cookie.split(";")[0]);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (csrf === undefined) throw new Error("the login form has no CSRF token");
  const signedIn = await fetch(`${base}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: visitor.join("; ") },
    body: new URLSearchParams({ username: ADMIN.username, password: ADMIN.password, _csrf: csrf }).toString(),
  });
  const session = signedIn.headers.getSetCookie().find((cookie) => cookie.startsWith("inventory_session="));
  if (signedIn.status !== 303 || session === undefined) throw new Error(`login answered ${signedIn.status}`);
  return session.split(";")[0];
}

// --- report --------------------------------------------------------------------------------------

function report(result: {
  tool: string;
  database: string;
  seeding: { seconds: number };
  inventoryStartRssKb: number;
  scenarios: Row[];
}): string {
  const rate = (n: number) => Math.round(n).toLocaleString("en-US");
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
  const lines = [
    `database: ${result.database}; seeding ${result.seeding.seconds.toFixed(1)} s; ${result.tool}, ${seconds} s x ${runs} runs, medians; inventory RSS after start ${mb(result.inventoryStartRssKb)}`,
    "",
    "| scenario | conns | paths | inventory req/s | reference req/s | inventory/reference | inventory p99 | reference p99 | inventory errors | inventory peak RSS |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const row of result.scenarios) {
    const ratio = (row.inventory.requestsPerSecond / row.reference.requestsPerSecond).toFixed(3);
    lines.push(
      `| ${row.scenario} | ${row.connections} | ${rate(row.paths)} | ${rate(row.inventory.requestsPerSecond)} | ${rate(row.reference.requestsPerSecond)} | ${ratio} | ${ms(row.inventory.p99Ms)} | ${ms(row.reference.p99Ms)} | ${row.inventory.errors} | ${mb(row.inventoryPeakRssKb)} |`,
    );
  }
  const find = (letter: string) => result.scenarios.find((row) => row.scenario.startsWith(`(${letter})`));
  lines.push("");
  for (const letter of ["a", "b", "c", "d", "k", "l"]) {
    const row = find(letter);
    if (row) {
      const ratio = row.inventory.requestsPerSecond / row.reference.requestsPerSecond;
      lines.push(
        `Goal ${row.scenario}: >= 0.1x the reference: ${ratio.toFixed(3)}x, ${ratio >= 0.1 ? "met" : "NOT met"}.`,
      );
    }
  }
  for (const letter of ["i", "j", "m", "n"]) {
    const row = find(letter);
    if (row)
      lines.push(
        `Goal ${row.scenario}: p99 < 20 ms: ${ms(row.inventory.p99Ms)}, ${row.inventory.p99Ms < 20 ? "met" : "NOT met"}.`,
      );
  }
  const page = find("o");
  if (page)
    lines.push(
      `Goal ${page.scenario}: p99 < 50 ms: ${ms(page.inventory.p99Ms)}, ${page.inventory.p99Ms < 50 ? "met" : "NOT met"}.`,
    );
  const [first, deep] = [find("a"), find("e")];
  if (first && deep) {
    const slower = first.inventory.requestsPerSecond / deep.inventory.requestsPerSecond;
    lines.push(
      `Goal offset=${DEEP_OFFSET} no slower than 2x the first page: ${slower.toFixed(2)}x the first page's time (req/s ${rate(first.inventory.requestsPerSecond)} / ${rate(deep.inventory.requestsPerSecond)}; p99 ${ms(first.inventory.p99Ms)} / ${ms(deep.inventory.p99Ms)}), ${slower <= 2 ? "met" : "NOT met"}.`,
    );
  }
  return lines.join("\n");
}

// Run, not imported (bench/inventory-bulk.ts seeds with it).
if (import.meta.main) {
  const [role, where, port] = process.argv.slice(2);
  if (role === "--reference") await serveReference(where, "assets", Number(port));
  else if (role === "--seed") await seed(where);
  else await main();
}
