// Starting and stopping the two servers under comparison: Debian's `webhook` and anvil hooks.
// Each server leads its own process group so that stopping it also ends any hook command it left
// running, and every group still alive when the test process exits is killed, even after a failure.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { sendRequest } from "./raw-http.ts";

/** A program and the arguments that come before the webhook flags. */
export interface ServerCommand {
  file: string;
  args: string[];
}

const repoRoot = path.resolve(import.meta.dirname, "../../../../..");

/** The reference program; WEBHOOK_BIN overrides the Debian path. */
export function webhookCommand(): ServerCommand {
  return { file: process.env.WEBHOOK_BIN || "/usr/bin/webhook", args: [] };
}

/**
 * The server under test. ANVIL_HOOKS_CMD (split at spaces) overrides it; pointing it at the webhook
 * binary runs the suite webhook-against-webhook, which proves the harness itself compares correctly.
 */
export function anvilCommand(): ServerCommand {
  const configured = process.env.ANVIL_HOOKS_CMD?.trim();
  if (configured) {
    const [file, ...args] = configured.split(/\s+/);
    return { file, args };
  }
  return { file: process.execPath, args: [path.join(repoRoot, "packages/hooks/src/main.ts")] };
}

/** True when the "anvil" side is in fact the webhook binary (harness validation mode). */
export function anvilIsWebhook(): boolean {
  const anvil = anvilCommand();
  const webhook = webhookCommand().file;
  return anvil.args.length === 0 && existsSync(anvil.file) && existsSync(webhook)
    ? realpathSync(anvil.file) === realpathSync(webhook)
    : false;
}

export interface ServerOptions {
  name: string;
  command: ServerCommand;
  /** webhook flags; -ip and -port are added. */
  flags: string[];
  cwd: string;
  env: Record<string, string>;
}

export interface RunningServer {
  name: string;
  pid: number;
  port: number;
  /** What the server printed so far (stdout and stderr), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

const liveGroups = new Set<number>();

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The whole group is already gone.
  }
}

process.on("exit", () => {
  for (const pid of liveGroups) killGroup(pid, "SIGKILL");
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => process.exit(128 + (signal === "SIGINT" ? 2 : 15)));
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(
    options.command.file,
    [...options.command.args, ...options.flags, "-ip", "127.0.0.1", "-port", String(port)],
    { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise<string>((resolve) => {
    child.on("error", (error) => resolve(String(error)));
    child.on("exit", (code, signal) => resolve(`exit code ${code}, signal ${signal}`));
  });
  if (child.pid !== undefined) liveGroups.add(child.pid);
  const server: RunningServer = {
    name: options.name,
    pid: child.pid ?? 0,
    port,
    output: () => output,
    stop: () => stopServer(child, exited),
  };
  const how = `${options.command.file} ${[...options.command.args, ...options.flags].join(" ")}`;
  let ended = false;
  const failure = await Promise.race([
    waitUntilAnswering(port, () => !ended),
    exited.then((why) => {
      ended = true;
      return `it ended (${why})`;
    }),
  ]);
  if (failure !== undefined) {
    await server.stop();
    throw new Error(`${options.name} did not start: ${failure}\ncommand: ${how}\noutput:\n${output}`);
  }
  return server;
}

async function stopServer(child: ChildProcess, exited: Promise<string>): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  killGroup(pid, "SIGTERM");
  const stopped = await Promise.race([exited.then(() => true), sleep(3000, false, { ref: false })]);
  // Hook commands share the group and may outlive the server: end them too.
  killGroup(pid, stopped ? "SIGTERM" : "SIGKILL");
  if (!stopped) await exited;
  liveGroups.delete(pid);
}

/** Resolves undefined once the server answers `GET /`, or a reason after the start timeout. */
async function waitUntilAnswering(port: number, running: () => boolean): Promise<string | undefined> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && running()) {
    try {
      await sendRequest(port, { method: "GET", path: "/", headers: [], body: Buffer.alloc(0) });
      return undefined;
    } catch {
      await sleep(50);
    }
  }
  return "no answer on GET / within 15 s";
}

/** Ports this process handed out: the two servers of a pair start at once, before either binds. */
const handedOut = new Set<number>();

/** A random port in 20000-60000 that nothing listens on right now and no other server here got. */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once("error", () => resolve(false));
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
