import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { freePort } from "@anvil/core/testing";

export const anvilBin = fileURLToPath(new URL("../../../bin/anvil", import.meta.url));

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts bin/anvil as a user would, in its own process group so leftovers can be detected. */
export function startAnvil(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { child: ChildProcess; finished: Promise<Finished> } {
  const child = spawn(anvilBin, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
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

type Served = { port: number; child: ChildProcess; finished: Promise<Finished> };

/** Starts `anvil <service> serve` on a free port of 127.0.0.1 and waits until it answers. */
async function startService(
  service: "forge" | "inventory",
  dataDir: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<Served> {
  const port = await freePort();
  const started = startAnvil(
    [service, "serve", "--host", "127.0.0.1", "--data-dir", dataDir, "--port", String(port), ...args],
    env,
  );
  await waitFor(service, async () =>
    (await fetch(`http://127.0.0.1:${port}/api/healthz`)).ok ? true : undefined,
  );
  return { port, ...started };
}

/** The forge alone, without SSH. */
export function startForge(
  dataDir: string,
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<Served> {
  return startService("forge", dataDir, ["--ssh-port", "0", ...extraArgs], env);
}

export function startInventory(dataDir: string, extraArgs: string[] = []): Promise<Served> {
  return startService("inventory", dataDir, extraArgs, {});
}
