import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { tempDir } from "@anvil/core/testing";
import { GIT_CLIENT_ENV } from "../ssh/tools.ts";
import { api } from "./forge.ts";
import { git, withCredentials } from "./git.ts";

/** A clone of a repository just made through the API (with a README commit), pushed to with git. */
export interface Clone {
  dir: string;
  /** Runs git in the clone, failing the test when git fails; answers its stdout, trimmed. */
  git(...args: string[]): Promise<string>;
  /**
   * Commits these files (a null content removes one; none makes an empty commit), at `date` when
   * given (ISO 8601); answers the commit id.
   */
  commit(message: string, files?: Record<string, string | null>, date?: string): Promise<string>;
  /** Imports a commit of `count` generated files onto `branch` with git fast-import; answers its id. */
  importFiles(branch: string, count: number): string;
  remove(): Promise<void>;
}

export async function cloneNewRepository(
  url: string,
  owner: { login: string; token: string },
  name: string,
  options: { private?: boolean } = {},
): Promise<Clone> {
  const made = await api(url, "POST", "/user/repos", {
    token: owner.token,
    body: { name, auto_init: true, private: options.private ?? false },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const work = await tempDir();
  const remote = `${withCredentials(url, owner.login, "password123")}/${owner.login}/${name}.git`;
  const cloned = await git(["clone", "-q", remote, "c"], work.path);
  assert.equal(cloned.code, 0, cloned.stderr);
  const dir = join(work.path, "c");
  const runWith = async (env: NodeJS.ProcessEnv, args: string[]) => {
    const result = await git(args, dir, env);
    assert.equal(result.code, 0, `git ${args.join(" ")}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const run = (...args: string[]) => runWith({}, args);
  return {
    dir,
    git: run,
    async commit(message, files = {}, date) {
      for (const [path, content] of Object.entries(files)) {
        if (content === null) {
          await run("rm", "-q", "--", path);
          continue;
        }
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), content);
        await run("add", "--", path);
      }
      const env = date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {};
      await runWith(env, ["commit", "-q", "--allow-empty", "-m", message]);
      return run("rev-parse", "HEAD");
    },
    importFiles(branch, count) {
      const lines = [`commit refs/heads/${branch}`, "committer Alice <alice@example.com> 1700000000 +0000"];
      lines.push("data 4", "many");
      for (let i = 0; i < count; i++) {
        const content = `file ${i}\n`;
        lines.push(
          `M 100644 inline d${i % 10}/f${String(i).padStart(5, "0")}.txt`,
          `data ${content.length}`,
          content,
        );
      }
      const imported = spawnSync("git", ["fast-import", "--quiet"], {
        cwd: dir,
        input: `${lines.join("\n")}\n`,
        env: { ...process.env, ...GIT_CLIENT_ENV, HOME: dir },
      });
      assert.equal(imported.status, 0, imported.stderr.toString());
      return spawnSync("git", ["rev-parse", branch], { cwd: dir }).stdout.toString().trim();
    },
    remove: () => work.remove(),
  };
}
