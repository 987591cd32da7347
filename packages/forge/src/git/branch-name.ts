import { Invalid } from "@anvil/core";
import { runGit } from "./run.ts";

/** Throws Invalid unless `name` is a branch name git accepts (`git check-ref-format`). */
export async function assertBranchName(name: string): Promise<void> {
  // check-ref-format allows a leading dash, which git's porcelain refuses and commands would read
  // as an option.
  const valid =
    name !== "" &&
    !name.startsWith("-") &&
    !name.includes("\0") &&
    (await runGit(["check-ref-format", `refs/heads/${name}`], { acceptExitCodes: [1] })).exitCode === 0;
  if (!valid) {
    throw new Invalid(`invalid branch name: ${JSON.stringify(name)}`, {
      branch: ["is not a valid branch name"],
    });
  }
}
