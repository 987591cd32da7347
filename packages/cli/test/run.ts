import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

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
