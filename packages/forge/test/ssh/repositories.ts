import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runOk } from "./tools.ts";

/**
 * Bare repositories `<root>/alice/<name>.git`, each holding one commit with README.md, made the
 * way a user would: commit in a work tree, then `git clone --bare`.
 */
export async function makeBareRepositories(scratch: string, root: string, names: string[]): Promise<void> {
  const work = join(scratch, "seed");
  await runOk("git", ["init", "-q", "-b", "main", work]);
  await writeFile(join(work, "README.md"), "# demo\n");
  await runOk("git", ["add", "README.md"], { cwd: work });
  await runOk("git", ["commit", "-q", "-m", "first commit"], { cwd: work });
  await mkdir(join(root, "alice"), { recursive: true });
  for (const name of names) {
    await runOk("git", ["clone", "-q", "--bare", work, join(root, "alice", `${name}.git`)]);
  }
}

/** The subject of a branch's newest commit in a bare repository. */
export async function headSubject(bare: string, branch = "main"): Promise<string> {
  return (await runOk("git", ["--git-dir", bare, "log", "-1", "--format=%s", branch])).trim();
}
