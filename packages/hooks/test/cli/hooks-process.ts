// The hook runner as a real process (`node src/main.ts <webhook flags>`) for tests: what it
// writes as it grows, how it ended, the waits such tests need, and what they send it.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import path from "node:path";

const main = path.join(import.meta.dirname, "../../src/main.ts");

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A hook runner process; `output` grows as it writes. */
export interface Running {
  child: ChildProcess;
  output: () => string;
  finished: Promise<Finished>;
}

export interface LaunchOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Started under `ulimit -n` with this many open files (soft and hard limit). */
  openFiles?: number;
  /** Leads its own process group, so that the group shows whether any process it started is alive. */
  detached?: boolean;
}

export function launch(args: string[], options: LaunchOptions): Running {
  const command = [process.execPath, main, ...args];
  if (options.openFiles !== undefined) {
    command.unshift("/bin/sh", "-c", `ulimit -n ${options.openFiles} && exec "$0" "$@"`);
  }
  const child = spawn(command[0], command.slice(1), {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: options.detached,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const finished = new Promise<Finished>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return { child, output: () => stdout + stderr, finished };
}

export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 10000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** GET over TCP (`port`) or a Unix socket (`socketPath`) on a new connection each time. */
export function get(
  target: { port?: number; socketPath?: string },
  urlPath: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ ...target, host: "127.0.0.1", path: urlPath, agent: false }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
  });
}

/** Writes `hooks` as the JSON hooks file `name` in `dir`; returns its path. */
export async function writeHooksFile(dir: string, name: string, hooks: unknown[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, JSON.stringify(hooks));
  return file;
}

/** A hook that answers `<id> fired` and runs /bin/true. */
export const echoHook = (id: string) => ({
  id,
  "execute-command": "/bin/true",
  "response-message": `${id} fired`,
});
