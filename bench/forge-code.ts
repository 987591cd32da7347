// The forge's code scenarios (part 3 of the forge): a file's contents under load, an archive of a
// 10,000-file tree against `git archive`, and the merge of a pull request 1,000 commits ahead
// against `git merge` in a plain clone (a recursive tree of 100,000 files is bench/git-trees.ts's).
// Seeded through the forge's own services (repositories, tokens) with the trees written by
// `git fast-import`.
import { execFile, spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { Database } from "@anvil/core";
import { waitFor } from "@anvil/core/testing";
import type { Selectable } from "kysely";
import { gitEnvironment, repositoryPath, runGit } from "../packages/forge/src/git/index.ts";
import { updateRepository } from "../packages/forge/src/repositories/repos.ts";
import type { ForgeTables } from "../packages/forge/src/schemas/tables.ts";
import { createRepository } from "../packages/forge/src/services/repositories.ts";
import { createToken } from "../packages/forge/src/services/tokens.ts";
import { median, memoryOf, type Running } from "./load.ts";

const run = promisify(execFile);

export const FILES = { name: "code-files", count: 10_000 };
export const MERGE = { name: "code-merge", ahead: 1_000 };
/** The files of FILES whose contents the load asks for. */
const ASKED_FILES = 1_000;

export interface SeededCode {
  owner: string;
  /** A token of the owner that may open and merge pull requests. */
  token: string;
  /** `/api/v1/repos/{owner}/code-files/contents/…` of ASKED_FILES files. */
  contentPaths: string[];
  /** One branch of code-merge per merge to time, each MERGE.ahead commits ahead of main's start. */
  mergeBranches: string[];
}

type Account = Selectable<ForgeTables["account"]>;

const fileOf = (i: number) => `dir-${String(i % 100).padStart(2, "0")}/file-${i}.txt`;

/** One commit on `branch` (after `from`, a mark or ref, when given) holding `files`. */
function commitStream(
  branch: string,
  mark: number,
  from: string | undefined,
  message: string,
  files: [string, string][],
): string {
  const when = `${Date.UTC(2024, 0, 1) / 1000 + mark * 60} +0000`;
  const parts = [
    `commit refs/heads/${branch}\nmark :${mark}\n`,
    `author Bench Author <author@example.com> ${when}\ncommitter Bench Author <author@example.com> ${when}\n`,
    `data ${Buffer.byteLength(message)}\n${message}\n`,
    from === undefined ? "" : `from ${from}\n`,
  ];
  for (const [file, content] of files)
    parts.push(`M 100644 inline ${file}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
  return parts.join("");
}

async function fastImport(repoPath: string, stream: string): Promise<void> {
  await runGit([`--git-dir=${repoPath}`, "fast-import", "--quiet"], { input: stream });
  await runGit([`--git-dir=${repoPath}`, "gc", "--quiet"]);
}

async function seededRepository(
  database: Database<ForgeTables>,
  storage: { root: string },
  owner: Account,
  name: string,
  stream: string,
): Promise<string> {
  const repository = await createRepository(database, storage, owner, owner, { name });
  const repoPath = repositoryPath(storage.root, owner.name, name);
  await fastImport(repoPath, stream);
  await updateRepository(database.db, repository.id, { is_empty: false });
  return repoPath;
}

export async function seedCode(
  database: Database<ForgeTables>,
  storage: { root: string },
  owner: Account,
  merges: number,
): Promise<SeededCode> {
  const line = "a line of text in a file of the benchmark's tree, long enough to be like code\n";
  await seededRepository(
    database,
    storage,
    owner,
    FILES.name,
    commitStream(
      "main",
      1,
      undefined,
      "10,000 files",
      Array.from({ length: FILES.count }, (_, i) => [fileOf(i), `${fileOf(i)}\n${line.repeat(12)}`]),
    ),
  );
  // Each branch changes files of its own, so main takes every merge without a conflict.
  const mergeBranches = Array.from({ length: merges }, (_, k) => `ahead-${k}`);
  const parts = [commitStream("main", 1, undefined, "start", [["README.md", "merge bench\n"]])];
  let mark = 1;
  for (const branch of mergeBranches) {
    for (let j = 0; j < MERGE.ahead; j++) {
      mark += 1;
      const file = `${branch}/part-${j % 50}.txt`;
      parts.push(
        commitStream(branch, mark, j === 0 ? ":1" : undefined, `${branch}: change ${j}`, [[file, `${j}\n`]]),
      );
    }
  }
  await seededRepository(database, storage, owner, MERGE.name, parts.join(""));

  const { secret } = await createToken(database, owner, {
    name: "bench-code",
    scopes: ["write:repository", "write:issue"],
  });
  const step = FILES.count / ASKED_FILES;
  return {
    owner: owner.name,
    token: secret,
    contentPaths: Array.from(
      { length: ASKED_FILES },
      (_, i) => `/api/v1/repos/${owner.name}/${FILES.name}/contents/${fileOf(i * step)}`,
    ),
    mergeBranches,
  };
}

/** Streams a command's standard output to nowhere; resolves with its byte count once it exits 0. */
function drainCommand(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "inherit"] });
    let bytes = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(bytes) : reject(new Error(`${command} exited ${code}`)),
    );
  });
}

async function drainResponse(url: string, init: RequestInit = {}): Promise<number> {
  const response = await fetch(url, init);
  if (response.status !== 200) throw new Error(`${url} answers ${response.status}`);
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return bytes;
}

async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const result = await work();
  return [performance.now() - started, result];
}

/**
 * `/archive/main.tar.gz` of the 10,000-file tree from the forge, and `git archive` of the same
 * commit run directly, alternating after one unrecorded run of each; the forge's peak RSS before
 * and after shows whether the archive is held in memory.
 */
export async function archiveBenchmark(
  forge: Running,
  storage: { root: string },
  owner: string,
  runs: number,
) {
  const repoPath = repositoryPath(storage.root, owner, FILES.name);
  const forgeOnce = () =>
    drainResponse(`${forge.base}/api/v1/repos/${owner}/${FILES.name}/archive/main.tar.gz`);
  const gitOnce = () =>
    drainCommand(
      "git",
      [`--git-dir=${repoPath}`, "archive", "--format=tar.gz", `--prefix=${FILES.name}/`, "refs/heads/main"],
      gitEnvironment(),
    );
  const before = await memoryOf(forge.pid);
  await forgeOnce();
  await gitOnce();
  const forgeMs: number[] = [];
  const gitMs: number[] = [];
  let sizes: [number, number] = [0, 0];
  for (let i = 0; i < runs; i++) {
    const [a, forgeBytes] = await timed(forgeOnce);
    const [b, gitBytes] = await timed(gitOnce);
    forgeMs.push(a);
    gitMs.push(b);
    sizes = [forgeBytes, gitBytes];
    console.error(`  archive run ${i + 1}: forge ${a.toFixed(0)} ms, git archive ${b.toFixed(0)} ms`);
  }
  const after = await memoryOf(forge.pid);
  return {
    files: FILES.count,
    forgeMs: median(forgeMs),
    gitArchiveMs: median(gitMs),
    forgeRuns: forgeMs,
    gitArchiveRuns: gitMs,
    forgeBytes: sizes[0],
    gitArchiveBytes: sizes[1],
    forgePeakRssBeforeKb: before.hwmKb,
    forgePeakRssAfterKb: after.hwmKb,
  };
}

/**
 * Each run merges one pull request (a branch MERGE.ahead commits ahead, no conflict) through the
 * API, and just before it the same merge is made by `git merge --no-ff` in a plain clone of the
 * repository as it then is: the forge's time is the POST's, git's the command's.
 */
export async function mergeBenchmark(
  forge: Running,
  storage: { root: string },
  work: string,
  code: SeededCode,
) {
  const api = `${forge.base}/api/v1/repos/${code.owner}/${MERGE.name}`;
  const headers = { Authorization: `token ${code.token}`, "Content-Type": "application/json" };
  const repoPath = repositoryPath(storage.root, code.owner, MERGE.name);
  const identity = { name: "Bench Merger", email: "merger@example.com" };
  const env = {
    ...gitEnvironment(),
    HOME: work,
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
  };
  const forgeMs: number[] = [];
  const gitMs: number[] = [];
  for (const [i, branch] of code.mergeBranches.entries()) {
    const clone = path.join(work, `merge-clone-${i}`);
    await run("git", ["clone", "--quiet", repoPath, clone], { env, maxBuffer: 1 << 20 });
    const [gitTime] = await timed(() =>
      run("git", ["-C", clone, "merge", "--no-ff", "--no-edit", "--quiet", `origin/${branch}`], { env }),
    );
    await rm(clone, { recursive: true, force: true });
    const opened = await fetch(`${api}/pulls`, {
      method: "POST",
      headers,
      body: JSON.stringify({ head: branch, base: "main", title: `Merge ${branch}` }),
    });
    if (opened.status !== 201) throw new Error(`opening a pull request answers ${opened.status}`);
    const { number } = (await opened.json()) as { number: number };
    // Checked in the background, as a pull is long before anyone merges it: what is timed is
    // the merge alone.
    await waitFor(`pull ${number}'s check`, async () => {
      const pull = await fetch(`${api}/pulls/${number}`, { headers });
      return ((await pull.json()) as { mergeable?: boolean }).mergeable || undefined;
    });
    const [forgeTime, merged] = await timed(() =>
      fetch(`${api}/pulls/${number}/merge`, {
        method: "POST",
        headers,
        body: JSON.stringify({ Do: "merge" }),
      }),
    );
    if (merged.status !== 200) throw new Error(`merging answers ${merged.status} ${await merged.text()}`);
    // The first merge of each warms up (JIT, caches) and is not recorded.
    if (i > 0) {
      forgeMs.push(forgeTime);
      gitMs.push(gitTime);
    }
    console.error(`  merge ${i + 1}: forge ${forgeTime.toFixed(0)} ms, git merge ${gitTime.toFixed(0)} ms`);
  }
  const { stdout } = await runGit([`--git-dir=${repoPath}`, "rev-list", "--count", "refs/heads/main"]);
  return {
    aheadCommits: MERGE.ahead,
    forgeMs: median(forgeMs),
    gitMergeMs: median(gitMs),
    forgeRuns: forgeMs,
    gitMergeRuns: gitMs,
    mainCommitsAfter: Number(stdout.trim()),
  };
}
