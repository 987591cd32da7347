// Bulk check-out speed: one `POST /api/v1/hardware/bulk/checkout` of 500 assets against
// `anvil inventory serve` (its own process) on the inventory bench's data (bench/inventory.ts:
// 100,000 assets), then the bulk check-in of the same assets; beside them, the same 500 check-outs
// and check-ins as single requests one after another, as a script without bulk makes them.
// Run with `scripts/run-node.sh bench/inventory-bulk.ts` (or `npm run bench:inventory-bulk`).
// Environment: BENCH_RUNS (5), BENCH_DATABASE (postgres://… to run on PostgreSQL; SQLite by
// default), BENCH_INVENTORY_NODE_OPTIONS (NODE_OPTIONS of the inventory process only), BENCH_OUT
// (JSON path, default tmp/bench/inventory-bulk.json).
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseDatabaseUrl } from "@anvil/core";
import { seed, startInventory, superuserToken } from "./inventory.ts";
import { benchStore, cpuMsOf, median, type Running } from "./load.ts";

const root = path.resolve(import.meta.dirname, "..");
const runs = Number(process.env.BENCH_RUNS || 5);
const outFile = process.env.BENCH_OUT || path.join(root, "tmp/bench/inventory-bulk.json");
/** Assets a request names: the bulk routes' limit. */
const BATCH = 500;
/** The goal: a bulk check-out of BATCH assets on SQLite. */
const GOAL_MS = 1000;

interface Timing {
  checkoutMs: number;
  checkinMs: number;
  /** The server's CPU time for them (user and system), which others on the machine do not inflate. */
  checkoutCpuMs: number;
  checkinCpuMs: number;
}

async function main(): Promise<void> {
  const store = await benchStore("inventory-bulk", "inventory.db");
  const { dataDir, databaseUrl } = store;
  let inventory: Running | undefined;
  try {
    const dialect = parseDatabaseUrl(databaseUrl).dialect;
    console.error(`inventory bulk bench: seeding ${dialect}`);
    const seeded = await seed(databaseUrl);
    const token = await superuserToken(dataDir, databaseUrl);
    inventory = await startInventory(dataDir, databaseUrl, process.env.BENCH_INVENTORY_NODE_OPTIONS);
    const base = inventory.base;
    const headers = {
      authorization: `Bearer ${token}`,
      accept: "application/json",
      "content-type": "application/json",
    };
    const post = async (route: string, body: unknown, expected: number) => {
      const started = performance.now();
      const answer = await fetch(`${base}/api/v1${route}`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
      const json = (await answer.json()) as { status: string; payload: { results?: unknown[] } };
      const ms = performance.now() - started;
      // A refusal is fast: only what did the work counts.
      if (
        answer.status !== 200 ||
        json.status !== "success" ||
        (json.payload.results?.length ?? 1) !== expected
      )
        throw new Error(`${route}: ${answer.status} ${JSON.stringify(json).slice(0, 500)}`);
      return ms;
    };
    const target = { checkout_to_type: "user", assigned_user: seeded.userIds[0], note: "bench" };
    // Free, deployable assets spread over the table; each batch is used once per mode.
    const free = seeded.pools.flat();
    if (free.length < 2 * BATCH) throw new Error(`only ${free.length} free assets`);
    const bulkIds = free.slice(0, BATCH);
    const singleIds = free.slice(BATCH, 2 * BATCH);

    const server = inventory.pid;
    /** The wall and server CPU time of `requests`. */
    const timed = async (requests: () => Promise<unknown>) => {
      const [cpu, started] = [await cpuMsOf(server), performance.now()];
      await requests();
      return { ms: performance.now() - started, cpuMs: (await cpuMsOf(server)) - cpu };
    };
    const round = async (
      checkout: () => Promise<unknown>,
      checkin: () => Promise<unknown>,
    ): Promise<Timing> => {
      const out = await timed(checkout);
      const back = await timed(checkin);
      return { checkoutMs: out.ms, checkinMs: back.ms, checkoutCpuMs: out.cpuMs, checkinCpuMs: back.cpuMs };
    };
    const bulkRound = () =>
      round(
        () => post("/hardware/bulk/checkout", { ids: bulkIds, ...target }, BATCH),
        () => post("/hardware/bulk/checkin", { ids: bulkIds, note: "bench" }, BATCH),
      );
    const singleRound = () =>
      round(
        async () => {
          for (const id of singleIds) await post(`/hardware/${id}/checkout`, target, 1);
        },
        async () => {
          for (const id of singleIds) await post(`/hardware/${id}/checkin`, { note: "bench" }, 1);
        },
      );

    // One unrecorded round of each: the server's JIT and statement caches.
    await bulkRound();
    await singleRound();
    const bulk: Timing[] = [];
    const single: Timing[] = [];
    const loadBefore = os.loadavg()[0];
    for (let run = 1; run <= runs; run++) {
      bulk.push(await bulkRound());
      single.push(await singleRound());
      const shown = (timing: Timing) =>
        `${timing.checkoutMs.toFixed(0)} / ${timing.checkinMs.toFixed(0)} ms (CPU ${timing.checkoutCpuMs} / ${timing.checkinCpuMs} ms)`;
      console.error(
        `  run ${run}: bulk ${shown(bulk.at(-1) as Timing)}; ${BATCH} single ${shown(single.at(-1) as Timing)}`,
      );
    }
    const medians = (timings: Timing[]) => ({
      checkoutMs: median(timings.map((timing) => timing.checkoutMs)),
      checkinMs: median(timings.map((timing) => timing.checkinMs)),
      checkoutCpuMs: median(timings.map((timing) => timing.checkoutCpuMs)),
      checkinCpuMs: median(timings.map((timing) => timing.checkinCpuMs)),
    });
    const result = {
      database: dialect,
      batch: BATCH,
      runs,
      cpus: os.availableParallelism(),
      loadAverageBefore: loadBefore,
      bulk: { ...medians(bulk), each: bulk },
      single: { ...medians(single), each: single },
    };
    const ms = (n: number) => `${Math.round(n).toLocaleString("en-US")} ms`;
    const row = (name: string, timing: ReturnType<typeof medians>) =>
      `| ${name} | ${ms(timing.checkoutMs)} | ${ms(timing.checkoutCpuMs)} | ${ms(timing.checkinMs)} | ${ms(timing.checkinCpuMs)} |`;
    console.log(
      [
        `database: ${dialect}; ${BATCH} assets a round; ${runs} runs after one unrecorded; medians; load average ${loadBefore.toFixed(1)} on ${result.cpus} cores before the runs`,
        "",
        "| requests | check-out | server CPU | check-in | server CPU |",
        "|---|---:|---:|---:|---:|",
        row("one bulk request", result.bulk),
        row(`${BATCH} single requests, one after another`, result.single),
        "",
        `Goal: a bulk check-out of ${BATCH} assets under ${ms(GOAL_MS)} on SQLite: ${ms(result.bulk.checkoutMs)}, ${result.bulk.checkoutMs < GOAL_MS ? "met" : "NOT met"}${dialect === "sqlite" ? "" : " (measured on PostgreSQL)"}.`,
      ].join("\n"),
    );
    await mkdir(path.dirname(outFile), { recursive: true });
    await writeFile(outFile, `${JSON.stringify(result, null, 2)}\n`);
    console.error(`written to ${outFile}`);
  } finally {
    await inventory?.stop();
    await store.remove();
  }
}

await main();
