import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort } from "./app.ts";
import { type Finished, startAnvil, waitFor } from "./processes.ts";

// A real `anvil hooks` process for a service's webhooks to reach: its hooks run a node script
// (spawned without a shell) that appends the arguments it was given, one JSON list a line, to a
// file the test reads back.

/** Where one of a hook's arguments comes from, in the hooks file's words. */
export interface HookArgument {
  source: "header" | "payload" | "string";
  name: string;
}

/** One hook of the runner: its id, what it passes to the recording script, and its trigger rule. */
export interface RunnerHook {
  id: string;
  arguments: HookArgument[];
  rule: unknown;
}

export interface HookRunner {
  /** The URL a webhook posts to for the hook `id`. */
  url(id: string): string;
  /** Every command run so far, in the order they appended: the arguments each was given. */
  calls(): Promise<string[][]>;
  /** Waits until a recorded call satisfies `accept`; that call. */
  waitForCall(what: string, accept: (call: string[]) => boolean): Promise<string[]>;
  stop(): Promise<Finished>;
}

/** A trigger rule: the body's HMAC-SHA256 with `secret` is what X-Hub-Signature-256 says. */
export function signedWith(secret: string): unknown {
  return {
    match: {
      type: "payload-hmac-sha256",
      secret,
      parameter: { source: "header", name: "X-Hub-Signature-256" },
    },
  };
}

/** A trigger rule: the header `name` is one of `values`. */
export function headerIsOneOf(name: string, values: string[]): unknown {
  return {
    or: values.map((value) => ({ match: { type: "value", value, parameter: { source: "header", name } } })),
  };
}

/** Writes the recording script and the hooks file into `dir`, starts the runner and waits until it listens. */
export async function startHookRunner(dir: string, hooks: RunnerHook[]): Promise<HookRunner> {
  const log = join(dir, "calls.log");
  const script = join(dir, "record.mjs");
  await writeFile(
    script,
    `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + "\\n");\n`,
  );
  const hooksFile = join(dir, "hooks.json");
  await writeFile(
    hooksFile,
    JSON.stringify(
      hooks.map((hook) => ({
        id: hook.id,
        "execute-command": process.execPath,
        "command-working-directory": dir,
        "pass-arguments-to-command": [{ source: "string", name: script }, ...hook.arguments],
        "trigger-rule": hook.rule,
      })),
    ),
  );
  const port = await freePort();
  const runner = startAnvil(["hooks", "-hooks", hooksFile, "-ip", "127.0.0.1", "-port", String(port)]);
  await waitFor("the hook runner to listen", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/`);
    await res.body?.cancel();
    return true;
  });
  const calls = async () => {
    const text = await readFile(log, "utf8").catch(() => "");
    return text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as string[]);
  };
  return {
    url: (id) => `http://127.0.0.1:${port}/hooks/${id}`,
    calls,
    waitForCall: (what, accept) => waitFor(what, async () => (await calls()).find(accept)),
    stop: () => {
      runner.child.kill("SIGTERM");
      return runner.finished;
    },
  };
}
