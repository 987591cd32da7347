import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

// The real git client, as a user would run it, in an environment that ignores the machine's
// configuration: the tests see what any git user would see.

export const ALICE = { name: "Alice Tester", email: "alice@example.com" };

export interface GitOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ClientOptions {
  env?: Record<string, string>;
  input?: string | Buffer;
}

function clientEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: "/nonexistent",
    LC_ALL: "C",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: ALICE.name,
    GIT_AUTHOR_EMAIL: ALICE.email,
    GIT_COMMITTER_NAME: ALICE.name,
    GIT_COMMITTER_EMAIL: ALICE.email,
    ...extra,
  };
}

function runClient(
  cwd: string,
  args: string[],
  options: ClientOptions,
): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd, env: clientEnvironment(options.env), shell: false });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.once("error", reject);
    child.once("close", (code) =>
      resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8") }),
    );
    child.stdin.end(options.input);
  });
}

/** Runs the git client in `cwd` and reports how it ended, whatever the outcome. */
export async function tryGit(cwd: string, args: string[], options: ClientOptions = {}): Promise<GitOutcome> {
  const outcome = await runClient(cwd, args, options);
  return { ...outcome, stdout: outcome.stdout.toString("utf8") };
}

/** A pack of the objects reachable from `include` but not from `exclude`, as a push would send it. */
export async function packObjects(workTree: string, include: string, exclude: string): Promise<Buffer> {
  const outcome = await runClient(workTree, ["pack-objects", "--stdout", "--revs", "--quiet"], {
    input: `${include}\n^${exclude}\n`,
  });
  if (outcome.code !== 0) throw new Error(`git pack-objects failed: ${outcome.stderr}`);
  return outcome.stdout;
}

/** Runs the git client and returns its stdout; fails with its stderr when it fails. */
export async function git(cwd: string, args: string[], options: ClientOptions = {}): Promise<string> {
  const outcome = await tryGit(cwd, args, options);
  if (outcome.code !== 0) throw new Error(`git ${args.join(" ")} exited ${outcome.code}: ${outcome.stderr}`);
  return outcome.stdout;
}

/** Writes a file in a work tree and commits it; returns the new commit's id. */
export async function commitFile(
  workTree: string,
  path: string,
  content: string | Buffer,
  message: string,
  env: Record<string, string> = {},
): Promise<string> {
  await mkdir(dirname(join(workTree, path)), { recursive: true });
  await writeFile(join(workTree, path), content);
  await git(workTree, ["add", "--", path]);
  await git(workTree, ["commit", "--quiet", "-m", message], { env });
  return (await git(workTree, ["rev-parse", "HEAD"])).trim();
}

/** `count` commits on top of `parent` on `branch`, made at once by fast-import, dated from now on. */
export async function importCommits(
  workTree: string,
  branch: string,
  parent: string,
  count: number,
): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const parts: string[] = [];
  for (let i = 1; i <= count; i++) {
    const message = `commit ${i}\n`;
    const content = `line ${i}\n`;
    parts.push(
      `commit refs/heads/${branch}\n`,
      `committer ${ALICE.name} <${ALICE.email}> ${now + i} +0000\n`,
      `data ${Buffer.byteLength(message)}\n${message}`,
      i === 1 ? `from ${parent}\n` : "",
      `M 100644 inline counter.txt\ndata ${Buffer.byteLength(content)}\n${content}\n`,
    );
  }
  await git(workTree, ["fast-import", "--quiet"], { input: parts.join("") });
}
