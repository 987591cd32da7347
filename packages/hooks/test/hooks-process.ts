// The hook runner as a real process (`node src/main.ts <webhook flags>`) for tests: what it
// writes as it grows, how it ended, and the waits such tests need.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";

const main = path.join(import.meta.dirname, "../src/main.ts");

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
}

export function launch(args: string[], options: LaunchOptions): Running {
  const command = [process.execPath, main, ...args];
  if (options.openFiles !== undefined) {
    command.unshift("/bin/sh", "-c", `ulimit -n ${options.openFiles} && exec "$0" "$@"`);
  }
  const child = spawn(command[0], command.slice(1), {
    cwd: options.cwd,
    env: options.env ?? process.env,
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
