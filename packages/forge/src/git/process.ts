import { spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import type { GitExit } from "./command-error.ts";
import { gitEnvironment } from "./environment.ts";

const STDERR_LIMIT = 64 * 1024;

export interface SpawnGitOptions {
  /** Variables added to the isolated environment (GIT_PROTOCOL, GIT_AUTHOR_NAME, …). */
  env?: Readonly<Record<string, string>>;
  /** `/` by default, so git never discovers a repository around the server's own directory. */
  cwd?: string;
}

/** A running git process whose input and output are streams (transport over HTTP or SSH). */
export interface GitProcess {
  readonly args: readonly string[];
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Resolves, never rejects, once git has exited and its output streams have closed. */
  readonly exited: Promise<GitExit>;
  /** Stops git and the helpers it started; harmless once it has ended. */
  kill(): void;
  /** Lets the server exit while git still runs (a kept look-up process waiting for input). */
  unref(): void;
}

/** Starts `git <args>` without a shell, in the isolated environment of environment.ts. */
export function spawnGit(args: readonly string[], options: SpawnGitOptions = {}): GitProcess {
  const child = spawn("git", args, {
    shell: false,
    cwd: options.cwd ?? "/",
    env: gitEnvironment(options.env),
    stdio: ["pipe", "pipe", "pipe"],
    // A process group of its own: upload-pack and receive-pack hand their pipes to pack-objects
    // and index-pack, which must stop with them.
    detached: true,
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    if (stderr.length < STDERR_LIMIT) stderr += chunk.slice(0, STDERR_LIMIT - stderr.length);
  });
  // git may exit without reading all of its input (a refused push, an early error); its exit
  // status tells what happened, so a broken pipe on the way in is not a failure of its own.
  child.stdin.on("error", () => {});
  let closed = false;
  const exited = new Promise<GitExit>((resolve) => {
    child.once("error", (spawnError) => {
      closed = true;
      resolve({ code: null, signal: null, stderr, spawnError });
    });
    child.once("close", (code, signal) => {
      closed = true;
      resolve({ code, signal, stderr });
    });
  });
  return {
    args,
    unref() {
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr])
        (stream as unknown as { unref?: () => void }).unref?.();
    },
    stdin: child.stdin,
    stdout: child.stdout,
    exited,
    kill() {
      // Until "close", some member of the group still holds git's pipes, so the group id is ours.
      if (closed || child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    },
  };
}
