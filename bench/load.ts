// What the load benchmarks share: finding wrk, reading its report, and medians; starting servers as
// processes of their own, loading them from a second process, alternating them run by run; bulk
// inserts, a PostgreSQL database of the bench's own, and the reference server (the ceiling).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { parseDatabaseUrl } from "@anvil/core";
import { freePort } from "@anvil/core/testing";
import BetterSqlite3 from "better-sqlite3";
import Fastify from "fastify";
import type { Insertable, Kysely } from "kysely";
import pg from "pg";

const run = promisify(execFile);

export interface WrkMeasure {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers other than 2xx/3xx, and socket errors and timeouts. */
  errors: number;
}

export async function hasWrk(): Promise<boolean> {
  try {
    await run("wrk", ["--version"]);
    return true;
  } catch (error) {
    // wrk prints its version and exits 1; only a missing program is "absent".
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

/** The rate, latencies and errors of a `wrk --latency` report. */
export function parseWrk(output: string): WrkMeasure {
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(output);
  const percentile = (p: string) => {
    // wrk pads a value in seconds with a trailing space ("1.10s ").
    const found = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(output);
    if (!found) throw new Error(`no ${p}% latency in wrk output:\n${output}`);
    const factor = { us: 0.001, ms: 1, s: 1000 }[found[2] as "us" | "ms" | "s"];
    return Number(found[1]) * factor;
  };
  if (!rate) throw new Error(`no Requests/sec in wrk output:\n${output}`);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  return {
    requestsPerSecond: Number(rate[1]),
    p50Ms: percentile("50"),
    p99Ms: percentile("99"),
    errors: non2xx + socketErrors,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const root = path.resolve(import.meta.dirname, "..");

// --- processes -----------------------------------------------------------------------------------

export interface Running {
  name: string;
  pid: number;
  base: string;
  stop(): Promise<void>;
}

const liveGroups = new Set<number>();
let cleanupInstalled = false;

/** Ends every server still running when the bench exits, however it exits. */
function killOnExit(pid: number): void {
  liveGroups.add(pid);
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on("exit", () => {
    for (const group of liveGroups) killGroup(group, "SIGKILL");
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => process.exit(128 + (signal === "SIGINT" ? 2 : 15)));
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The whole group is already gone.
  }
}

/** A bench file (`script`) again, in the role `args` names, listening on a port of its own. */
export async function startSelf(script: string, name: string, args: string[]): Promise<Running> {
  const port = await freePort();
  return startProcess(name, process.execPath, port, [script, ...args, String(port)], {});
}

/**
 * Starts a server as the leader of its own process group (so stopping it ends whatever it
 * started) and resolves once it answers HTTP on `port`.
 */
export async function startProcess(
  name: string,
  file: string,
  port: number,
  args: string[],
  env: Record<string, string>,
): Promise<Running> {
  const child = spawn(file, args, {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<string>((resolve) => {
    child.on("error", (error) => resolve(String(error)));
    child.on("exit", (code, signal) => resolve(`exit code ${code}, signal ${signal}`));
  });
  if (child.pid !== undefined) killOnExit(child.pid);
  const running: Running = {
    name,
    pid: child.pid ?? 0,
    base: `http://127.0.0.1:${port}`,
    stop: () => stopProcess(child, exited),
  };
  let ended = false;
  const failure = await Promise.race([
    waitUntilAnswering(running.base, () => !ended),
    exited.then((why) => {
      ended = true;
      return `it ended (${why})`;
    }),
  ]);
  if (failure !== undefined) {
    await running.stop();
    throw new Error(
      `${name} did not start: ${failure}\ncommand: ${file} ${args.join(" ")}\noutput:\n${output}`,
    );
  }
  return running;
}

async function stopProcess(child: ChildProcess, exited: Promise<string>): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  killGroup(pid, "SIGTERM");
  // Long enough for a server to close gracefully and write a --cpu-prof profile.
  const stopped = await Promise.race([exited.then(() => true), sleep(15_000, false, { ref: false })]);
  if (!stopped) {
    killGroup(pid, "SIGKILL");
    await exited;
  }
  liveGroups.delete(pid);
}

/** Resolves undefined once any HTTP answer comes back, or a reason after 30 s. */
async function waitUntilAnswering(base: string, running: () => boolean): Promise<string | undefined> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && running()) {
    try {
      await (await fetch(`${base}/`)).arrayBuffer();
      return undefined;
    } catch {
      await sleep(100);
    }
  }
  return "no HTTP answer within 30 s";
}

/**
 * The CPU time the process has used so far, user and system, in ms (/proc/<pid>/stat, in clock
 * ticks of 10 ms): what a request cost the server, whoever else shares the machine's cores.
 */
export async function cpuMsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may hold spaces; the fields after it are space-separated.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The process's resident set now and at its peak (VmRSS, VmHWM in /proc/<pid>/status), in kB. */
export async function memoryOf(pid: number): Promise<{ rssKb: number; hwmKb: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? 0);
  return { rssKb: field("VmRSS"), hwmKb: field("VmHWM") };
}

// --- load ----------------------------------------------------------------------------------------

export interface Target {
  base: string;
  paths: string[];
  headers: string[];
  /**
   * A wrk Lua script of the scenario's own (e.g. requests with bodies); without it, wrk picks each
   * request's path at random from `paths`. Its `done` may print `failures <n>`, added to errors.
   */
  script?: string;
  /** Brings the server back to the state the script starts from; called before each run. */
  reset?: () => Promise<void>;
}

export interface Summary {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Each run's req/s, in order. */
  runs: number[];
}

/** How the runs of a bench are made. */
export interface LoadPlan {
  /** "wrk" or "autocannon". */
  tool: string;
  /** Whether requests spread over a target's paths (wrk only). */
  spread: boolean;
  /** A directory for the generated scripts. */
  work: string;
  seconds: number;
  runs: number;
}

/** Header lines (`Authorization: token x`) as fetch's headers. */
export function headerObject(lines: string[]): Record<string, string> {
  return Object.fromEntries(
    lines.map((header) => {
      const colon = header.indexOf(":");
      return [header.slice(0, colon), header.slice(colon + 1).trim()];
    }),
  );
}

/**
 * Asks for every tenth path (the first included; every `step`-th when given) once and checks the
 * answer, so that an error path or a page the caller may not see is never what gets measured.
 */
export async function checkTarget(
  target: Target,
  check: (body: unknown, path: string) => boolean,
  step = 10,
): Promise<void> {
  const headers = headerObject(target.headers);
  for (let i = 0; i < target.paths.length; i += step) {
    const response = await fetch(`${target.base}${target.paths[i]}`, { headers });
    const text = await response.text();
    // Web pages are checked as their HTML; API answers as their JSON.
    const json = response.headers.get("content-type")?.includes("json") ?? false;
    if (response.status !== 200 || !check(json ? JSON.parse(text) : text, target.paths[i]))
      throw new Error(`${target.paths[i]} answers ${response.status} ${text.slice(0, 300)}`);
  }
}

/**
 * One run of the load generator in a second process. wrk picks each request's path at random from
 * the target's list (a Lua script) or runs the target's own script; autocannon takes no list, so
 * it asks for the first path only.
 */
export async function load(
  plan: LoadPlan,
  target: Target,
  connections: number,
  duration: number,
): Promise<WrkMeasure> {
  const url = `${target.base}${target.paths[0]}`;
  await target.reset?.();
  if (plan.tool === "wrk") {
    const args = ["-t2", `-c${connections}`, `-d${duration}s`, "--latency"];
    for (const header of target.headers) args.push("-H", header);
    const script =
      target.script ??
      (plan.spread
        ? `local paths = {${target.paths.map((p) => JSON.stringify(p)).join(",")}}\nlocal count = #paths\nrequest = function()\n  return wrk.format(nil, paths[math.random(count)])\nend\n`
        : undefined);
    if (script !== undefined) {
      const file = path.join(plan.work, "load.lua");
      await writeFile(file, script);
      args.push("-s", file);
    }
    const { stdout } = await run("wrk", [...args, url], { maxBuffer: 1 << 20 });
    const measure = parseWrk(stdout);
    const failures = Number(/^failures (\d+)$/m.exec(stdout)?.[1] ?? 0);
    return { ...measure, errors: measure.errors + failures };
  }
  if (target.script !== undefined) throw new Error("this scenario needs wrk");
  const autocannon = path.join(root, "node_modules/autocannon/autocannon.js");
  const headers = target.headers.flatMap((header) => ["-H", header.replace(": ", "=")]);
  const { stdout } = await run(
    process.execPath,
    [autocannon, "-j", "-n", "-c", String(connections), "-d", String(duration), ...headers, url],
    { maxBuffer: 16 << 20 },
  );
  const report = JSON.parse(stdout);
  return {
    requestsPerSecond: report.requests.average,
    p50Ms: report.latency.p50,
    p99Ms: report.latency.p99,
    errors: report.non2xx + report.errors + report.timeouts,
  };
}

export function summarize(list: WrkMeasure[]): Summary {
  return {
    requestsPerSecond: median(list.map((m) => m.requestsPerSecond)),
    p50Ms: median(list.map((m) => m.p50Ms)),
    p99Ms: median(list.map((m) => m.p99Ms)),
    errors: list.reduce((sum, m) => sum + m.errors, 0),
    runs: list.map((m) => Math.round(m.requestsPerSecond)),
  };
}

/**
 * The runs of one scenario on each side (e.g. the server and the reference): after one unrecorded
 * run of each (at most 3 s), so that none is measured while its JIT warms up, the sides take turns
 * run by run, so a slow moment of the shared machine does not favour one of them. Answers each
 * side's measures, in the order of `sides`.
 */
export async function measureAlternately(
  plan: LoadPlan,
  scenario: string,
  connections: number,
  sides: { name: string; target: Target }[],
): Promise<WrkMeasure[][]> {
  for (const side of sides) await load(plan, side.target, connections, Math.min(plan.seconds, 3));
  const measures: WrkMeasure[][] = sides.map(() => []);
  for (let i = 0; i < plan.runs; i++) {
    for (const [k, side] of sides.entries()) {
      const measure = await load(plan, side.target, connections, plan.seconds);
      measures[k].push(measure);
      const errors = measure.errors > 0 ? `, ${measure.errors} errors` : "";
      console.error(
        `  ${scenario} ${side.name} run ${i + 1}: ${Math.round(measure.requestsPerSecond)} req/s, p99 ${measure.p99Ms} ms${errors}`,
      );
    }
  }
  return measures;
}

// --- data ----------------------------------------------------------------------------------------

/** Rows per multi-row INSERT: well under SQLite's and PostgreSQL's limits on bound parameters. */
const CHUNK = 400;

export async function insertAll<Tables, T extends keyof Tables & string>(
  db: Pick<Kysely<Tables>, "insertInto">,
  table: T,
  rows: NoInfer<Insertable<Tables[T]>>[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    // kysely cannot relate the rows of a table named by a type parameter to values()' overloads.
    await db
      .insertInto(table)
      .values(rows.slice(i, i + CHUNK) as never)
      .execute();
  }
}

/** Where a bench keeps its files and its database; `remove` ends both. */
export interface BenchStore {
  /** A scratch directory of the run. */
  work: string;
  /** The service's data directory, inside `work`. */
  dataDir: string;
  databaseUrl: string;
  remove(): Promise<void>;
}

/**
 * A scratch directory and the bench's database: a database of its own on the PostgreSQL server
 * that BENCH_DATABASE names, SQLite's `<file>` in the data directory otherwise.
 */
export async function benchStore(name: string, file: string): Promise<BenchStore> {
  const work = await mkdtemp(path.join(os.tmpdir(), `anvil-bench-${name}-`));
  const dataDir = path.join(work, "data");
  await mkdir(dataDir);
  const admin = process.env.BENCH_DATABASE;
  const database = admin ? await createBenchDatabase(admin) : undefined;
  return {
    work,
    dataDir,
    databaseUrl: database?.url ?? `sqlite:${path.join(dataDir, file)}`,
    remove: async () => {
      await database?.drop();
      await rm(work, { recursive: true, force: true });
    },
  };
}

/** A database of the bench's own on the PostgreSQL server of `adminUrl`, dropped at the end. */
export async function createBenchDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (parseDatabaseUrl(adminUrl).dialect !== "postgres")
    throw new Error("BENCH_DATABASE must be a postgres:// URL (SQLite is the default)");
  const name = `anvil_bench_${process.pid}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  // A run killed earlier under the same process id left its database behind.
  await admin(`drop database if exists ${name} with (force)`);
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

// --- the reference server ------------------------------------------------------------------------

/**
 * The ceiling for an API read: plain fastify (no logger, no hooks) answering `GET /<table>/:id`,
 * one row of the service's own `table` by primary key as JSON, with a prepared statement on the
 * same database the service uses (better-sqlite3 on its SQLite file; on PostgreSQL a `pg` pool of
 * 10, the services' default, and a named statement).
 */
export async function serveReference(databaseUrl: string, table: string, port: number): Promise<void> {
  const { dialect, location } = parseDatabaseUrl(databaseUrl);
  const text = `select * from ${table} where id = ${dialect === "sqlite" ? "?" : "$1"}`;
  let byId: (id: number) => unknown;
  if (dialect === "sqlite") {
    const statement = new BetterSqlite3(location, { readonly: true }).prepare(text);
    byId = (id) => statement.get(id);
  } else {
    // Ids are bigint there; numbers in JSON, as the services answer them.
    pg.types.setTypeParser(pg.types.builtins.INT8, Number);
    const pool = new pg.Pool({ connectionString: location });
    byId = async (id) => (await pool.query({ name: `${table}-by-id`, text, values: [id] })).rows[0];
  }
  const app = Fastify();
  app.get<{ Params: { id: string } }>(`/${table}/:id`, async (request, reply) => {
    const row = await byId(Number(request.params.id));
    return row ?? reply.status(404).send({ message: "not found" });
  });
  await app.listen({ host: "127.0.0.1", port });
}
