// Hook runner throughput: Debian's `webhook` and anvil hooks side by side on 127.0.0.1, same hooks
// file, same load (wrk, or autocannon when wrk is absent). Run with `scripts/run-node.sh bench/hooks.ts`.
// Environment: BENCH_SECONDS (10), BENCH_RUNS (3), BENCH_CONNECTIONS (32), BENCH_OUT (JSON path),
// BENCH_ANVIL_FLAGS (extra anvil flags, split at spaces, e.g. "-workers 2"), WEBHOOK_BIN and
// ANVIL_HOOKS_CMD as in the side-by-side suite.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { sendRequest } from "../packages/hooks/test/side-by-side/raw-http.ts";
import {
  anvilCommand,
  type RunningServer,
  type ServerCommand,
  startServer,
  webhookCommand,
} from "../packages/hooks/test/side-by-side/servers.ts";
import { hasWrk, median, parseWrk } from "./load.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");
const seconds = Number(process.env.BENCH_SECONDS || 10);
const runs = Number(process.env.BENCH_RUNS || 3);
const connections = Number(process.env.BENCH_CONNECTIONS || 32);
const outFile = process.env.BENCH_OUT || path.join(root, "tmp/bench/hooks.json");
const anvilFlags = (process.env.BENCH_ANVIL_FLAGS ?? "").split(/\s+/).filter(Boolean);

interface Scenario {
  name: string;
  path: string;
  /** Checked once on each server before loading it, so an error path is never measured. */
  status: number;
  body: string;
}

const scenarios: Scenario[] = [
  {
    name: "(a) rule mismatch",
    path: "/hooks/bench-mismatch?token=wrong",
    status: 200,
    body: "Hook rules were not satisfied.",
  },
  { name: "(b) runs /bin/true", path: "/hooks/bench-true", status: 200, body: "started" },
  { name: "(c) unknown hook id", path: "/hooks/no-such-hook", status: 404, body: "Hook not found." },
];

const hooksFile = JSON.stringify([
  {
    id: "bench-mismatch",
    "execute-command": "/bin/true",
    "trigger-rule": { match: { type: "value", value: "right", parameter: { source: "url", name: "token" } } },
  },
  { id: "bench-true", "execute-command": "/bin/true", "response-message": "started" },
]);

interface Measure {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

interface Summary {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Processes started per second of load and drain: the hook commands run. */
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
}

async function main(): Promise<void> {
  const tool = (await hasWrk()) ? "wrk" : "autocannon";
  const work = await mkdtemp(path.join(os.tmpdir(), "anvil-bench-"));
  const servers: [string, RunningServer][] = [];
  try {
    const hooks = path.join(work, "hooks.json");
    await writeFile(hooks, hooksFile);
    const commands: [string, ServerCommand, string[]][] = [
      ["webhook", webhookCommand(), []],
      ["anvil", anvilCommand(), anvilFlags],
    ];
    for (const [name, command, extra] of commands) {
      const server = await startServer({
        name,
        command,
        flags: ["-hooks", hooks, ...extra],
        cwd: work,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/" },
      });
      servers.push([name, server]);
    }
    console.error(
      `hooks bench: ${tool}, ${connections} connections, ${seconds} s, ${runs} run(s) per scenario and server, anvil flags: ${anvilFlagsText()}`,
    );
    const rows: Row[] = [];
    for (const scenario of scenarios) {
      for (const [, server] of servers) await checkScenario(server, scenario);
      const measured = new Map<string, (Measure & { drainMs: number; commandsPerSecond: number })[]>(
        servers.map(([name]) => [name, []]),
      );
      // Servers alternate run by run, so a slow moment of the machine does not favour one of them.
      for (let i = 0; i < runs; i++) {
        for (const [name, server] of servers) {
          const processesBefore = await processesStarted();
          const loadResult = await load(tool, `http://127.0.0.1:${server.port}${scenario.path}`);
          // How long the server still ran hook commands after the load ended (its spawn backlog);
          // the next run starts only once they are all done.
          const drainMs = await waitForNoChildren(server.pid);
          // Commands actually run, per second of load and drain: a server that answers quickly but
          // queues its commands does not gain by it here. The load generator's own few processes
          // and threads are counted too, a rounding error beside the commands.
          const commands = (await processesStarted()) - processesBefore;
          const measure = {
            ...loadResult,
            drainMs,
            commandsPerSecond: commands / (seconds + drainMs / 1000),
          };
          const rate = Math.round(measure.requestsPerSecond);
          const drain = `commands drained ${(drainMs / 1000).toFixed(1)} s after the load`;
          console.error(
            `  ${scenario.name} ${name} run ${i + 1}: ${rate} req/s, p99 ${measure.p99Ms} ms, ${drain}, ${Math.round(measure.commandsPerSecond)} processes/s`,
          );
          measured.get(name)?.push(measure);
        }
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
      rows.push({
        scenario: scenario.name,
        path: scenario.path,
        webhook: summary("webhook"),
        anvil: summary("anvil"),
      });
    }
    const table = `anvil flags: ${anvilFlagsText()}\n\n${markdownTable(rows)}`;
    console.log(table);
    await mkdir(path.dirname(outFile), { recursive: true });
    const result = {
      date: new Date().toISOString(),
      tool,
      connections,
      seconds,
      runs,
      anvilFlags,
      cpus: os.availableParallelism(),
      rows,
    };
    await writeFile(outFile, `${JSON.stringify(result, null, 2)}\n`);
    console.error(`written to ${outFile}`);
  } finally {
    for (const [, server] of servers) await server.stop();
    await rm(work, { recursive: true, force: true });
  }
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

async function load(tool: string, url: string): Promise<Measure> {
  if (tool === "wrk") {
    const { stdout } = await run("wrk", ["-t2", `-c${connections}`, `-d${seconds}s`, "--latency", url], {
      maxBuffer: 1 << 20,
    });
    return parseWrk(stdout);
  }
  const autocannon = path.join(root, "node_modules/autocannon/autocannon.js");
  const { stdout } = await run(
    process.execPath,
    [autocannon, "-j", "-n", "-c", String(connections), "-d", String(seconds), url],
    {
      maxBuffer: 16 << 20,
    },
  );
  const report = JSON.parse(stdout);
  return { requestsPerSecond: report.requests.average, p50Ms: report.latency.p50, p99Ms: report.latency.p99 };
}

function markdownTable(rows: Row[]): string {
  const lines = [
    "| scenario | webhook req/s | anvil req/s | ratio (anvil/webhook) | webhook p99 | anvil p99 | commands run/s webhook / anvil |",
    "|---|---:|---:|---:|---:|---:|---:|",
  ];
  const rate = (n: number) => Math.round(n).toLocaleString("en-US");
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  // Only the scenario that runs a command has any worth showing.
  const commands = (row: Row) =>
    row.webhook.commandsPerSecond < 100 && row.anvil.commandsPerSecond < 100
      ? "–"
      : `${rate(row.webhook.commandsPerSecond)} / ${rate(row.anvil.commandsPerSecond)}`;
  for (const row of rows) {
    const ratio = (row.anvil.requestsPerSecond / row.webhook.requestsPerSecond).toFixed(2);
    lines.push(
      `| ${row.scenario} | ${rate(row.webhook.requestsPerSecond)} | ${rate(row.anvil.requestsPerSecond)} | ${ratio} | ${ms(row.webhook.p99Ms)} | ${ms(row.anvil.p99Ms)} | ${commands(row)} |`,
    );
  }
  return lines.join("\n");
}

if (!existsSync(webhookCommand().file)) {
  console.error(`${webhookCommand().file} not found: apt-get install webhook (or set WEBHOOK_BIN)`);
  process.exit(1);
}
await main();
