// The Git data API on a large tree: page 1 of GET /git/trees/{sha}?recursive=1 on a tree of
// 100,000 files, against `git ls-tree -r -t -l` of the same tree run directly, and what the forge
// process holds while it answers (the listing is streamed: one page is kept, the rest counted).
// Run with `scripts/run-node.sh bench/git-trees.ts`. Environment: BENCH_FILES (100000),
// BENCH_REQUESTS (20), BENCH_OUT (JSON path).
import { execFile, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort, runAnvil } from "@anvil/core/testing";
import { gitEnvironment, repositoryPath } from "../packages/forge/src/git/index.ts";
import { median, memoryOf, startProcess } from "./load.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");
const files = Number(process.env.BENCH_FILES || 100_000);
const requests = Number(process.env.BENCH_REQUESTS || 20);
const outFile = process.env.BENCH_OUT || path.join(root, "tmp/bench/git-trees.json");

/** A fast-import stream of one commit of `count` small files in 100 × 7 folders. */
function importStream(count: number): string {
  const lines = [
    "commit refs/heads/main",
    "committer Bench <bench@example.com> 1700000000 +0000",
    "data 5",
    "bench",
  ];
  for (let i = 0; i < count; i++) {
    const content = `file ${i}\n`;
    lines.push(`M 100644 inline d${i % 100}/e${i % 7}/f${i}.txt`, `data ${content.length}`, content);
  }
  return `${lines.join("\n")}\n`;
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), "anvil-bench-trees-"));
try {
  const database = `sqlite:${path.join(dataDir, "forge.db")}`;
  const where = ["--data-dir", dataDir, "--database", database];
  const port = await freePort();
  const forge = await startProcess(
    "forge",
    path.join(root, "bin/anvil"),
    port,
    [
      "forge",
      "serve",
      ...where,
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--ssh-port",
      "0",
      "--log-level",
      "warn",
    ],
    {},
  );
  try {
    const user = await runAnvil([
      "forge",
      "admin",
      "user",
      "create",
      "--username",
      "bench",
      "--password",
      "benchpassword",
      "--email",
      "bench@example.com",
      "--access-token",
      ...where,
    ]);
    const token = /([0-9a-f]{40})\n/.exec(user.stdout)?.[1];
    if (!token) throw new Error(`no token: ${user.stdout}${user.stderr}`);
    const made = await fetch(`${forge.base}/api/v1/user/repos`, {
      method: "POST",
      headers: { authorization: `token ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "big" }),
    });
    if (made.status !== 201) throw new Error(`repository not made: ${made.status} ${await made.text()}`);
    const gitDir = repositoryPath(path.join(dataDir, "repositories"), "bench", "big");
    const imported = spawnSync("git", [`--git-dir=${gitDir}`, "fast-import", "--quiet"], {
      input: importStream(files),
      env: gitEnvironment(),
    });
    if (imported.status !== 0) throw new Error(`fast-import failed: ${imported.stderr}`);
    const url = `${forge.base}/api/v1/repos/bench/big/git/trees/main?recursive=1&per_page=1000`;
    const first = (await (await fetch(url, { headers: { authorization: `token ${token}` } })).json()) as {
      total_count: number;
      tree: unknown[];
    };
    const before = await memoryOf(forge.pid);
    const api: number[] = [];
    for (let i = 0; i < requests; i++)
      api.push(
        await timed(async () =>
          (await fetch(url, { headers: { authorization: `token ${token}` } })).arrayBuffer(),
        ),
      );
    const after = await memoryOf(forge.pid);
    const git: number[] = [];
    for (let i = 0; i < requests; i++)
      git.push(
        await timed(() =>
          run("git", [`--git-dir=${gitDir}`, "ls-tree", "-r", "-t", "-l", "-z", "main"], {
            maxBuffer: 256 * 1024 * 1024,
            env: gitEnvironment(),
          }),
        ),
      );
    const result = {
      files,
      entries: first.total_count,
      pageEntries: first.tree.length,
      apiMedianMs: median(api),
      gitLsTreeMedianMs: median(git),
      forgeRssKb: {
        before: before.rssKb,
        after: after.rssKb,
        peakBefore: before.hwmKb,
        peakAfter: after.hwmKb,
      },
    };
    await mkdir(path.dirname(outFile), { recursive: true });
    await writeFile(outFile, `${JSON.stringify(result, null, 2)}\n`);
    const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
    console.log(`| what | median | forge RSS before / after | forge peak RSS before / after |`);
    console.log(`| --- | --- | --- | --- |`);
    console.log(
      `| GET /git/trees/main?recursive=1, page 1 of ${result.entries} entries (${result.pageEntries} listed), ${requests} requests | ${result.apiMedianMs.toFixed(0)} ms | ${mb(before.rssKb)} / ${mb(after.rssKb)} | ${mb(before.hwmKb)} / ${mb(after.hwmKb)} |`,
    );
    console.log(
      `| git ls-tree -r -t -l of the whole tree, run directly | ${result.gitLsTreeMedianMs.toFixed(0)} ms | | |`,
    );
  } finally {
    await forge.stop();
  }
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
