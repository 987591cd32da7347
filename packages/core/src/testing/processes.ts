import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort } from "./app.ts";
import type { TestDatabase } from "./database.ts";
import { type TempDir, tempDir } from "./temp.ts";

/** The `anvil` command of this checkout. */
const anvilBin = fileURLToPath(new URL("../../../../bin/anvil", import.meta.url));

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

// Process groups this file started and that have not exited: killed when the test process exits,
// so a test that fails before its clean-up leaves no server holding a port or a database.
const running = new Set<number>();
let exitHookInstalled = false;

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is already gone.
  }
}

function trackGroup(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const pgid of running) killGroup(pgid, "SIGKILL");
    });
  }
  running.add(pid);
  child.once("exit", () => running.delete(pid));
}

/** Starts bin/anvil as a user would (no shell), in its own process group so leftovers can be detected. */
export function startAnvil(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { child: ChildProcess; finished: Promise<Finished> } {
  const child = spawn(anvilBin, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  trackGroup(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk;
  });
  const finished = once(child, "exit").then(
    ([code, signal]) => ({ code, signal, stdout, stderr }) as Finished,
  );
  return { child, finished };
}

export function runAnvil(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return startAnvil(args, env).finished;
}

/** True while any process of the group is alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `probe` until it answers something other than undefined; a probe that throws counts as undefined. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface ServiceProcess {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  child: ChildProcess;
  finished: Promise<Finished>;
}

/**
 * Stops a process started here: SIGTERM, and SIGKILL to its whole group when it has not exited
 * within `graceMs`. Whatever it left running in its group (a git it spawned) is killed too.
 */
export async function stopProcess(
  started: { child: ChildProcess; finished: Promise<Finished> },
  graceMs = 10_000,
): Promise<Finished> {
  const { child, finished } = started;
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), graceMs);
    });
    const outcome = await Promise.race([finished, late]);
    clearTimeout(timer);
    if (outcome === "late") killGroup(child.pid as number, "SIGKILL");
  }
  const result = await finished;
  killGroup(child.pid as number, "SIGKILL");
  return result;
}

/**
 * Starts `anvil ...args --host 127.0.0.1 --port P` on a free port and waits until its
 * /api/healthz (every service's) answers 200. A process that exits first fails the start with its
 * output; one that does not answer in time is stopped.
 */
export async function startServiceProcess(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 30_000,
): Promise<ServiceProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = startAnvil([...args, "--host", "127.0.0.1", "--port", String(port)], env);
  const { child } = started;
  try {
    const state = await waitFor(
      `anvil ${args.join(" ")} to answer on ${url}`,
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) return "exited";
        const res = await fetch(`${url}/api/healthz`, { signal: AbortSignal.timeout(2000) });
        await res.body?.cancel();
        return res.ok ? "ready" : undefined;
      },
      timeoutMs,
    );
    if (state === "exited") {
      const { code, signal, stdout, stderr } = await started.finished;
      throw new Error(
        `anvil ${args.join(" ")} exited (${code ?? signal}) before answering:\n${stdout}${stderr}`,
      );
    }
  } catch (error) {
    await stopProcess(started);
    throw error;
  }
  return { url, port, ...started };
}

export interface ServiceProcesses {
  readonly processes: readonly ServiceProcess[];
  readonly urls: readonly string[];
  /** Stops every process (see stopProcess); answers how each ended. */
  stop(): Promise<Finished[]>;
}

/**
 * Starts `count` processes of `anvil ...args` at once, each on a port of its own (see
 * startServiceProcess), and answers when every one is healthy. When one fails to start, the
 * others are stopped and the failure is thrown.
 */
export async function startServiceProcesses(
  args: string[],
  count: number,
  env: NodeJS.ProcessEnv = {},
): Promise<ServiceProcesses> {
  const outcomes = await Promise.allSettled(
    Array.from({ length: count }, () => startServiceProcess(args, env)),
  );
  const processes = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
  const stop = () => Promise.all(processes.map((p) => stopProcess(p)));
  const failed = outcomes.find((o) => o.status === "rejected");
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { processes, urls: processes.map((p) => p.url), stop };
}

export interface ServiceProcessesOn {
  /** The processes' base URLs; valid inside tests. */
  readonly urls: readonly string[];
  /** `--data-dir D --database URL`: what the service's admin commands need to reach the same data. */
  readonly where: readonly string[];
  readonly dataDir: string;
}

/**
 * For a forEachDatabase body: before its tests, starts `count` processes of `anvil <service>
 * serve` on `database` and one fresh data directory, all at once, so that they also migrate the
 * database together; after them, stops the processes (each must exit 0) and removes the
 * directory. They log warnings and errors only (`extraArgs` may say otherwise).
 */
export function serviceProcessesOn(
  database: TestDatabase,
  service: "forge" | "inventory",
  count: number,
  extraArgs: string[] = [],
): ServiceProcessesOn {
  const state = { urls: [] as readonly string[], where: [] as readonly string[], dataDir: "" };
  let dir: TempDir | undefined;
  let processes: ServiceProcesses | undefined;
  before(async () => {
    dir = await tempDir(`anvil-${service}-processes-`);
    state.dataDir = dir.path;
    state.where = ["--data-dir", dir.path, "--database", database.url];
    processes = await startServiceProcesses(
      [service, "serve", ...state.where, "--log-level", "warn", ...extraArgs],
      count,
    );
    state.urls = processes.urls;
  });
  after(async () => {
    const ended = (await processes?.stop()) ?? [];
    await dir?.remove();
    // A process that crashed during the tests, or did not stop on SIGTERM, fails them too.
    for (const { code, signal, stderr } of ended)
      if (code !== 0) throw new Error(`anvil ${service} serve ended with ${code ?? signal}:\n${stderr}`);
  });
  return state;
}
