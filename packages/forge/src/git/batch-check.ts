import { objectInfo } from "./object-reader.ts";
import { runGit } from "./run.ts";

// Object look-ups (`<name>` → `<id> <type>`) answered by the repository's kept `git cat-file
// --batch-command` (object-reader.ts), as Gitea keeps its batch readers: a request that only needs
// to know which commit a branch names pays a round trip through a pipe, not a new process. git
// reads refs afresh for every name it is given (loose ref files each time, packed-refs when their
// file changed), so a process kept alive still sees every push, from this process or another one.

const FORMAT = "--batch-check=%(objectname) %(objecttype)";

/**
 * `git cat-file --batch-check` answers for `names` (`<id> <type>`, or `<name> missing`), through
 * the repository's kept process; from a process of their own when it could not answer. Names must
 * not hold a newline.
 */
export async function batchCheck(repoPath: string, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const answers = await Promise.all(names.map((name) => objectInfo(repoPath, name)));
  if (answers.every((answer) => answer !== undefined))
    return answers.map((answer, i) =>
      answer === "missing" ? `${names[i]} missing` : `${answer.id} ${answer.type}`,
    );
  const { stdout } = await runGit([`--git-dir=${repoPath}`, "cat-file", FORMAT], {
    input: names.map((name) => `${name}\n`).join(""),
  });
  return stdout.split("\n").slice(0, names.length);
}
