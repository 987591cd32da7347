// Hook runner throughput: Debian's `webhook` and anvil hooks side by side on 127.0.0.1, same hooks
// file, same load (wrk -t2, or autocannon when wrk is absent), the two servers taking turns run by
// run (webhook, anvil, webhook, anvil…) so that a busy moment of the shared machine hits both alike.
// Each run's pair and its ratio are printed as they come, then the medians. Run with
// `scripts/run-node.sh bench/hooks.ts`.
// Environment: BENCH_SECONDS (5), BENCH_RUNS (5), BENCH_CONNECTIONS (32), BENCH_OUT (JSON path),
// BENCH_SCENARIOS (letters, "abc"), BENCH_ANVIL_FLAGS (extra anvil flags, split at spaces, e.g.
// "-workers 1"), BENCH_ANVIL_NODE_OPTIONS (NODE_OPTIONS of anvil only, e.g. --cpu-prof), WEBHOOK_BIN
// and ANVIL_HOOKS_CMD as in the side-by-side suite.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { sendRequest } from "../packages/hooks/test/side-by-side/harness/raw-http.ts";
import {
  anvilCommand,
  type RunningServer,
  startServer,
  webhookCommand,
} from "../packages/hooks/test/side-by-side/harness/servers.ts";
import { hasWrk, type LoadPlan, load, median, type WrkMeasure } from "./load.ts";

const root = path.resolve(import.meta.dirname, "..");
const seconds = Number(process.env.BENCH_SECONDS || 5);
const runs = Number(process.env.BENCH_RUNS || 5);
const connections = Number(process.env.BENCH_CONNECTIONS || 32);
const outFile = process.env.BENCH_OUT || path.join(root, "tmp/bench/hooks.json");
const only = process.env.BENCH_SCENARIOS || "abc";
const anvilFlags = (process.env.BENCH_ANVIL_FLAGS ?? "").split(/\s+/).filter(Boolean);
const anvilNodeOptions = process.env.BENCH_ANVIL_NODE_OPTIONS ?? "";

interface Scenario {
  letter: string;
  name: string;
  path: string;
  /** Checked once on each server before loading it, so an error path is never measured. */
  status: number;
  body: string;
}

const scenarios: Scenario[] = [
  {
    letter: "a",
    name: "(a) rule mismatch",
    path: "/hooks/bench-mismatch?token=wrong",
    status: 200,
    body: "Hook rules were not satisfied.",
  },
  { letter: "b", name: "(b) runs /bin/true", path: "/hooks/bench-true", status: 200, body: "started" },
  {
    letter: "c",
    name: "(c) unknown hook id",
    path: "/hooks/no-such-hook",
    status: 404,
    body: "Hook not found.",
  },
];

const hooksFile = JSON.stringify([
  {
    id: "bench-mismatch",
    "execute-command": "/bin/true",
    "trigger-rule": { match: { type: "value", value: "right", parameter: { source: "url", name: "token" } } },
  },
  { id: "bench-true", "execute-command": "/bin/true", "response-message": "started" },
]);

interface Measure extends WrkMeasure {
  /** How long the server still ran hook commands after the load ended. */
  drainMs: number;
  /** Processes started per second of load and drain: the hook commands run. */
  commandsPerSecond: number;
}

interface Summary {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  commandsPerSecond: number;
  /** Each run's req/s and drain time, in order. */
  runs: number[];
  drainMs: number[];
}

interface Row {
  scenario: string;
  path: string;
  webhook: Summary;
  anvil: Summary;
  /** anvil/webhook of each run's pair, in order, and their median. */
  ratios: number[];
  ratio: number;
}

async function main(): Promise<void> {
  const plan: LoadPlan = {
    tool: (await hasWrk()) ? "wrk" : "autocannon",
    spread: false,
    work: await mkdtemp(path.join(os.tmpdir(), "anvil-bench-")),
    seconds,
    runs,
  };
  const servers: RunningServer[] = [];
  try {
    const hooks = path.join(plan.work, "hooks.json");
    await writeFile(hooks, hooksFile);
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/" };
    servers.push(
      await startServer({
        name: "webhook",
        command: webhookCommand(),
        flags: ["-hooks", hooks],
        cwd: plan.work,
        env,
      }),
      await startServer({
        name: "anvil",
        command: anvilCommand(),
        flags: ["-hooks", hooks, ...anvilFlags],
        cwd: plan.work,
        env: anvilNodeOptions === "" ? env : { ...env, NODE_OPTIONS: anvilNodeOptions },
      }),
    );
    const load1 = (await readFile("/proc/loadavg", "utf8")).split(" ")[0];
    console.error(
      `hooks bench: ${plan.tool}, ${connections} connections, ${seconds} s, ${runs} run(s) per scenario and server, alternating; anvil flags: ${anvilFlagsText()}; load average ${load1}`,
    );
    const rows: Row[] = [];
    for (const scenario of scenarios.filter((s) => only.includes(s.letter))) {
      rows.push(await measureScenario(plan, servers, scenario));
    }
    const table = `anvil flags: ${anvilFlagsText()}\n\n${markdownTable(rows)}\n\n${runsText(rows)}`;
    console.log(table);
    await mkdir(path.dirname(outFile), { recursive: true });
    const result = {
      date: new Date().toISOString(),
      tool: plan.tool,
      connections,
      seconds,
      runs,
      anvilFlags,
      cpus: os.availableParallelism(),
      loadAverage: load1,
      rows,
    };
    await writeFile(outFile, `${JSON.stringify(result, null, 2)}\n`);
    console.error(`written to ${outFile}`);
  } finally {
    for (const server of servers) await server.stop();
    await rm(plan.work, { recursive: true, force: true });
  }
}

/**
 * One scenario: an unrecorded warm-up run of each server (JIT, connection set-up), then the pairs.
 * Each run waits for the server's commands to drain before the next starts.
 */
async function measureScenario(plan: LoadPlan, servers: RunningServer[], scenario: Scenario): Promise<Row> {
  for (const server of servers) await checkScenario(server, scenario);
  for (const server of servers) await measure(plan, server, scenario, Math.min(seconds, 2));
  const measured = new Map<string, Measure[]>(servers.map((server) => [server.name, []]));
  const ratios: number[] = [];
  for (let i = 0; i < runs; i++) {
    const pair: string[] = [];
    for (const server of servers) {
      const m = await measure(plan, server, scenario, seconds);
      measured.get(server.name)?.push(m);
      const drain = m.drainMs >= 100 ? `, drained ${(m.drainMs / 1000).toFixed(1)} s` : "";
      // wrk counts every non-2xx answer as an error: the 404s of (c) are what it measures.
      const errors = scenario.status < 300 && m.errors > 0 ? `, ${m.errors} errors` : "";
      pair.push(`${server.name} ${rate(m.requestsPerSecond)} req/s p99 ${ms(m.p99Ms)}${drain}${errors}`);
    }
    const [webhook, anvil] = servers.map((server) => measured.get(server.name)?.[i]?.requestsPerSecond ?? 0);
    ratios.push(anvil / webhook);
    console.error(
      `  ${scenario.name} run ${i + 1}: ${pair.join(" | ")} | anvil/webhook ${(anvil / webhook).toFixed(2)}`,
    );
  }
  const summary = (name: string): Summary => {
    const list = measured.get(name) ?? [];
    return {
      requestsPerSecond: median(list.map((m) => m.requestsPerSecond)),
      p50Ms: median(list.map((m) => m.p50Ms)),
      p99Ms: median(list.map((m) => m.p99Ms)),
      commandsPerSecond: median(list.map((m) => m.commandsPerSecond)),
      runs: list.map((m) => Math.round(m.requestsPerSecond)),
      drainMs: list.map((m) => m.drainMs),
    };
  };
  const row = {
    scenario: scenario.name,
    path: scenario.path,
    webhook: summary("webhook"),
    anvil: summary("anvil"),
    ratios,
    ratio: median(ratios),
  };
  console.error(
    `  ${scenario.name} medians: webhook ${rate(row.webhook.requestsPerSecond)} req/s, anvil ${rate(row.anvil.requestsPerSecond)} req/s, anvil/webhook ${row.ratio.toFixed(2)} (runs ${ratios.map((r) => r.toFixed(2)).join(" / ")})`,
  );
  return row;
}

/** One run on one server, then the wait until the commands it accepted have all run. */
async function measure(
  plan: LoadPlan,
  server: RunningServer,
  scenario: Scenario,
  duration: number,
): Promise<Measure> {
  const processesBefore = await processesStarted();
  const target = { base: `http://127.0.0.1:${server.port}`, paths: [scenario.path], headers: [] };
  const result = await load(plan, target, connections, duration);
  // The next run starts only once the server's spawn backlog is done, so that it does not steal
  // CPU from the other server.
  const drainMs = await waitForNoChildren(server.pid);
  // Commands actually run, per second of load and drain: a server that answers quickly but queues
  // its commands does not gain by it here. The load generator's own few processes and threads are
  // counted too, a rounding error beside the commands.
  const commands = (await processesStarted()) - processesBefore;
  return { ...result, drainMs, commandsPerSecond: commands / (duration + drainMs / 1000) };
}

async function checkScenario(server: RunningServer, scenario: Scenario): Promise<void> {
  const url = scenario.path;
  const answer = await sendRequest(server.port, {
    method: "GET",
    path: url,
    headers: [],
    body: Buffer.alloc(0),
  });
  const body = answer.body.toString("utf8");
  if (answer.status !== scenario.status || body !== scenario.body) {
    throw new Error(
      `${server.name} answers ${answer.status} ${JSON.stringify(body)} to ${url}; expected ${scenario.status}`,
    );
  }
}

/** Processes and threads the machine has started since boot (`processes` in /proc/stat). */
async function processesStarted(): Promise<number> {
  const stat = await readFile("/proc/stat", "utf8");
  return Number(/^processes (\d+)$/m.exec(stat)?.[1] ?? 0);
}

/**
 * Resolves, with the time it took, once the server has had no child process for a full second:
 * hook commands left from a run would steal CPU from the next one, and a server may still be
 * working through a backlog of accepted commands one after the other, so a single moment without
 * children (between two spawns) is not enough.
 */
async function waitForNoChildren(pid: number): Promise<number> {
  const started = Date.now();
  const deadline = started + 600_000;
  let quietSince = started;
  while (Date.now() < deadline) {
    if ((await childCount(pid)) > 0) quietSince = Date.now();
    else if (Date.now() - quietSince >= 1000) return quietSince - started;
    await sleep(50);
  }
  throw new Error(`server ${pid} still has child processes after 10 minutes`);
}

/**
 * Children of every thread of the process (Go starts commands from any of its threads). A child
 * running the server's own program is an anvil -workers copy: its children count instead.
 */
async function childCount(pid: number, program?: string): Promise<number> {
  const server = program ?? (await readlink(`/proc/${pid}/exe`).catch(() => ""));
  let count = 0;
  for (const task of await readdir(`/proc/${pid}/task`).catch(() => [])) {
    const children = await readFile(`/proc/${pid}/task/${task}/children`, "utf8").catch(() => "");
    for (const child of children.split(" ").filter(Boolean)) {
      const copy = (await readlink(`/proc/${child}/exe`).catch(() => "")) === server;
      count += copy ? await childCount(Number(child), server) : 1;
    }
  }
  return count;
}

function anvilFlagsText(): string {
  return anvilFlags.length === 0 ? "(none)" : anvilFlags.join(" ");
}

const rate = (n: number) => Math.round(n).toLocaleString("en-US");
const ms = (n: number) => `${n.toFixed(2)} ms`;

function markdownTable(rows: Row[]): string {
  const lines = [
    "| scenario | webhook req/s | anvil req/s | anvil/webhook | webhook p99 | anvil p99 | commands run/s webhook / anvil |",
    "|---|---:|---:|---:|---:|---:|---:|",
  ];
  // Only the scenario that runs a command has any worth showing.
  const commands = (row: Row) =>
    row.webhook.commandsPerSecond < 100 && row.anvil.commandsPerSecond < 100
      ? "–"
      : `${rate(row.webhook.commandsPerSecond)} / ${rate(row.anvil.commandsPerSecond)}`;
  for (const row of rows) {
    lines.push(
      `| ${row.scenario} | ${rate(row.webhook.requestsPerSecond)} | ${rate(row.anvil.requestsPerSecond)} | ${row.ratio.toFixed(2)} | ${ms(row.webhook.p99Ms)} | ${ms(row.anvil.p99Ms)} | ${commands(row)} |`,
    );
  }
  return lines.join("\n");
}

/** Each run's pair, as the README quotes them. */
function runsText(rows: Row[]): string {
  return rows
    .map(
      (row) =>
        `${row.scenario}: ${row.webhook.runs.map((w, i) => `${rate(w)}/${rate(row.anvil.runs[i])} (${row.ratios[i].toFixed(2)})`).join(", ")}`,
    )
    .join("\n");
}

if (!existsSync(webhookCommand().file)) {
  console.error(`${webhookCommand().file} not found: apt-get install webhook (or set WEBHOOK_BIN)`);
  process.exit(1);
}
await main();
