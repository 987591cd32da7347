// CSV import speed and memory: `anvil inventory import` (its own process) of an asset file of
// 100,000 rows naming 200 models, 10 categories, 20 makers, 50 locations and 5 status labels, as a
// spreadsheet export would; then the same file again with --update, which must change nothing.
// The import's peak resident set (VmHWM) is read from /proc while it runs.
// Run with `scripts/run-node.sh bench/inventory-import.ts` (or `npm run bench:inventory-import`).
// Environment: BENCH_ROWS (100000), BENCH_DATABASE (postgres://… to run on PostgreSQL; SQLite by
// default), BENCH_INVENTORY_NODE_OPTIONS (NODE_OPTIONS of the import processes only, e.g.
// "--cpu-prof --cpu-prof-dir=/tmp/prof"), BENCH_OUT (JSON path, default tmp/bench/inventory-import.json).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseDatabaseUrl } from "@anvil/core";
import { superuserToken } from "./inventory.ts";
import { benchStore, cpuMsOf, memoryOf } from "./load.ts";

const root = path.resolve(import.meta.dirname, "..");
const rows = Number(process.env.BENCH_ROWS || 100_000);
const outFile = process.env.BENCH_OUT || path.join(root, "tmp/bench/inventory-import.json");
const nodeOptions = process.env.BENCH_INVENTORY_NODE_OPTIONS;
/** The goals, on SQLite for 100,000 rows. */
const GOAL_ROWS_PER_SECOND = 2000;
const GOAL_PEAK_RSS_MB = 400;

/** Writes the CSV file a row at a time, as the import reads it: the bench holds no file in memory. */
async function writeCsv(file: string): Promise<number> {
  const out = createWriteStream(file);
  const write = async (line: string) => {
    if (!out.write(`${line}\n`)) await once(out, "drain");
  };
  await write(
    "Asset Tag,Item Name,Model Name,Model Number,Category,Manufacturer,Status,Location,Serial Number,Purchase Cost,Purchase Date,Order Number,Notes",
  );
  for (let n = 1; n <= rows; n += 1) {
    const model = n % 200;
    const status = ["Ready to Deploy", "Bench Pending", "Bench Repair", "Bench Spare", "Bench Loan"][n % 5];
    await write(
      `BI-${n},Bench item ${n},Bench model ${model},BM-${model},Bench category ${model % 10},Bench maker ${model % 20},${status},Bench site ${n % 50},SN-${n},"$${(n % 3000) + 1}.99",2024-${String((n % 12) + 1).padStart(2, "0")}-15,PO-${n % 997},imported row ${n}`,
    );
  }
  out.end();
  await once(out, "finish");
  return rows;
}

interface Measured {
  seconds: number;
  rowsPerSecond: number;
  /** The import's own CPU time (user and system, last read 100 ms before it ended at most). */
  cpuSeconds: number;
  /** Rows per second of the import's CPU time: what neighbours on a shared machine do not slow. */
  rowsPerCpuSecond: number;
  peakRssMb: number;
  summary: string;
}

/** One `anvil inventory import`, timed, its memory sampled until it ends. */
async function importOnce(args: string[]): Promise<Measured> {
  const started = performance.now();
  const child = spawn(path.join(root, "bin/anvil"), ["inventory", "import", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: nodeOptions ? { ...process.env, NODE_OPTIONS: nodeOptions } : process.env,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-20_000);
    process.stderr.write(chunk);
  });
  const exited = once(child, "exit") as Promise<[number | null]>;
  let peakKb = 0;
  let cpuMs = 0;
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  // bin/anvil is the process itself (it execs node), so its /proc entry is the import's.
  while (!ended) {
    const memory = await memoryOf(child.pid ?? 0).catch(() => undefined);
    if (memory) peakKb = Math.max(peakKb, memory.hwmKb);
    cpuMs = (await cpuMsOf(child.pid ?? 0).catch(() => undefined)) ?? cpuMs;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const [code] = await exited;
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`the import ended with ${code}:\n${stdout}\n${stderr}`);
  return {
    seconds,
    rowsPerSecond: rows / seconds,
    cpuSeconds: cpuMs / 1000,
    rowsPerCpuSecond: rows / (cpuMs / 1000),
    peakRssMb: peakKb / 1024,
    summary: stdout.trim(),
  };
}

async function main(): Promise<void> {
  const store = await benchStore("inventory-import", "inventory.db");
  const { dataDir, databaseUrl, work } = store;
  try {
    const dialect = parseDatabaseUrl(databaseUrl).dialect;
    const file = path.join(work, "assets.csv");
    console.error(`inventory import bench: writing ${rows} rows, ${dialect}`);
    await writeCsv(file);
    await superuserToken(dataDir, databaseUrl);
    const where = ["--data-dir", dataDir, "--database", databaseUrl];
    const loadBefore = os.loadavg()[0];
    const fresh = await importOnce([file, ...where]);
    const rerun = await importOnce([file, "--update", ...where]);
    const loadAfter = os.loadavg()[0];
    const result = {
      database: dialect,
      rows,
      cpus: os.availableParallelism(),
      loadBefore,
      loadAfter,
      fresh,
      rerun,
    };
    const shown = (name: string, measured: Measured) =>
      `| ${name} | ${measured.seconds.toFixed(1)} s | ${Math.round(measured.rowsPerSecond).toLocaleString("en-US")} | ${measured.cpuSeconds.toFixed(1)} s | ${Math.round(measured.rowsPerCpuSecond).toLocaleString("en-US")} | ${measured.peakRssMb.toFixed(0)} MB |`;
    const goal = (measured: Measured) =>
      `${Math.round(measured.rowsPerSecond).toLocaleString("en-US")} rows/s (${Math.round(measured.rowsPerCpuSecond).toLocaleString("en-US")} per CPU second), peak RSS ${measured.peakRssMb.toFixed(0)} MB: ${
        measured.rowsPerSecond >= GOAL_ROWS_PER_SECOND && measured.peakRssMb < GOAL_PEAK_RSS_MB
          ? "met"
          : "NOT met"
      }`;
    console.log(
      [
        `database: ${dialect}; ${rows.toLocaleString("en-US")} asset rows; ${result.cpus} cores, load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`,
        "",
        `| run | time | rows/s | CPU | rows per CPU s | peak RSS |`,
        "|---|---:|---:|---:|---:|---:|",
        shown("first import (creates)", fresh),
        shown("same file, --update (changes nothing)", rerun),
        "",
        fresh.summary,
        rerun.summary,
        "",
        `Goal (issue 19): at least ${GOAL_ROWS_PER_SECOND.toLocaleString("en-US")} rows/s wall with a peak RSS under ${GOAL_PEAK_RSS_MB} MB, on ${dialect}:`,
        `  first import: ${goal(fresh)}`,
        `  --update re-run: ${goal(rerun)}`,
        "  (wall time counts what neighbours take of a shared machine; rows per CPU second do not: read them with the load average.)",
      ].join("\n"),
    );
    await mkdir(path.dirname(outFile), { recursive: true });
    await writeFile(outFile, `${JSON.stringify(result, null, 2)}\n`);
    console.error(`written to ${outFile}`);
  } finally {
    await store.remove();
  }
}

await main();
