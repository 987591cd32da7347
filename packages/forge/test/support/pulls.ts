import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { waitFor } from "@anvil/core/testing";
import { api } from "./forge.ts";
import { git, withCredentials } from "./git.ts";

// A real clone to make branches and commits in, and pushes to the forge over HTTP, for the pull
// request tests.

export interface Clone {
  dir: string;
  /** Runs git in the clone; fails the test when git fails. */
  run(...args: string[]): Promise<string>;
  /** Writes `content` to `path`, commits it on the current branch and answers the commit id. */
  commit(path: string, content: string, message: string): Promise<string>;
  /** Switches to `branch`, made from `from` (the current commit by default) when it is new. */
  branch(branch: string, from?: string): Promise<void>;
  push(...refspecs: string[]): Promise<void>;
}

/** A repository of `owner` made with a first commit (README.md) on main. */
export async function makeRepository(url: string, token: string, name: string): Promise<void> {
  const made = await api(url, "POST", "/user/repos", { token, body: { name, auto_init: true } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
}

export async function cloneOf(
  url: string,
  user: string,
  password: string,
  owner: string,
  name: string,
  into: string,
): Promise<Clone> {
  const dir = join(into, `${owner}-${name}-${Math.random().toString(36).slice(2, 8)}`);
  const remote = `${withCredentials(url, user, password)}/${owner}/${name}.git`;
  const cloned = await git(["clone", "-q", remote, dir], into);
  assert.equal(cloned.code, 0, cloned.stderr);
  const run = async (...args: string[]) => {
    const result = await git(args, dir);
    assert.equal(result.code, 0, `git ${args.join(" ")}: ${result.stderr}`);
    return result.stdout.trim();
  };
  return {
    dir,
    run,
    async commit(path, content, message) {
      await writeFile(join(dir, path), content);
      await run("add", "--", path);
      await run("commit", "-q", "-m", message);
      return run("rev-parse", "HEAD");
    },
    async branch(branch, from) {
      const exists =
        (await git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], dir)).code === 0;
      if (exists) await run("checkout", "-q", branch);
      else await run("checkout", "-q", "-b", branch, ...(from ? [from] : []));
    },
    async push(...refspecs) {
      await run("push", "-q", "origin", ...refspecs);
    },
  };
}

/** Polls a pull until its `mergeable` is `expected` (the check runs in the background). */
export async function waitForMergeable(
  url: string,
  token: string,
  path: string,
  expected: boolean,
): Promise<Record<string, unknown>> {
  return waitFor(`${path} to be mergeable: ${expected}`, async () => {
    const pull = await api<Record<string, unknown>>(url, "GET", path, { token });
    return pull.status === 200 && pull.body.mergeable === expected ? pull.body : undefined;
  });
}
