import { readdir, readlink, realpath } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

/** Ids of the processes working inside `directory` (upload-pack, receive-pack and their helpers chdir there). */
export async function processesIn(directory: string): Promise<number[]> {
  const target = await realpath(directory);
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if ((await readlink(`/proc/${entry}/cwd`)) === target) found.push(Number(entry));
    } catch {
      // The process ended while we looked, or is not ours to inspect.
    }
  }
  return found;
}

/** Resolves once `condition` holds; the test's own timeout bounds the wait. */
export async function waitFor(condition: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await condition())) await sleep(20);
}
