import { access, mkdir, rename, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { Conflict, NotFound } from "@anvil/core";
import { checkBranchName } from "./ref-name.ts";
import { ownerPath, repositoryPath } from "./repository-path.ts";
import { runGit } from "./run.ts";

export interface RepositoryName {
  owner: string;
  name: string;
}

const FILES_EXIST = "repository files already exist";

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/**
 * Creates an empty bare repository at `repoPath` (parents included) whose HEAD names
 * `defaultBranch`. Conflict when a directory is already there; nothing is left behind on failure.
 */
export async function initRepository(repoPath: string, options: { defaultBranch: string }): Promise<void> {
  checkBranchName(options.defaultBranch);
  const path = resolve(repoPath);
  await mkdir(dirname(path), { recursive: true });
  try {
    await mkdir(path);
  } catch (error) {
    if (errorCode(error) === "EEXIST") throw new Conflict(FILES_EXIST);
    throw error;
  }
  try {
    // No template: no sample hooks or description file from wherever git was installed.
    await runGit([
      "init",
      "--bare",
      "--quiet",
      "--template=",
      `--initial-branch=${options.defaultBranch}`,
      path,
    ]);
    // Force pushes are allowed as in Gitea, where protected branches (not git) refuse them.
    await runGit([`--git-dir=${path}`, "config", "receive.denyNonFastForwards", "false"]);
  } catch (error) {
    await rm(path, { recursive: true, force: true });
    throw error;
  }
}

/** Whether `repoPath` holds a repository (it has a HEAD). */
export async function repositoryExists(repoPath: string): Promise<boolean> {
  try {
    await access(join(repoPath, "HEAD"));
    return true;
  } catch {
    return false;
  }
}

/** Whether the repository has no refs at all (nothing was ever pushed or committed). */
export async function isEmpty(repoPath: string): Promise<boolean> {
  const { stdout } = await runGit([
    `--git-dir=${repoPath}`,
    "for-each-ref",
    "--count=1",
    "--format=%(refname)",
  ]);
  return stdout === "";
}

/** Points HEAD at `refs/heads/<branch>`, which need not exist yet. */
export async function setDefaultBranch(repoPath: string, branch: string): Promise<void> {
  checkBranchName(branch);
  await runGit([`--git-dir=${repoPath}`, "symbolic-ref", "HEAD", `refs/heads/${branch}`]);
}

// rename(2) replaces an empty directory but refuses a non-empty one, so a target that already
// holds files is a Conflict even when another process claims it at the same moment.
async function moveDirectory(source: string, target: string): Promise<"moved" | "missing"> {
  await mkdir(dirname(target), { recursive: true });
  try {
    await rename(source, target);
    return "moved";
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") return "missing";
    if (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOTDIR") throw new Conflict(FILES_EXIST);
    throw error;
  }
}

/** Moves a whole repository directory to `target`: NotFound when it is missing, Conflict when files are there. */
export async function placeRepository(source: string, target: string): Promise<void> {
  if ((await moveDirectory(source, target)) === "missing") {
    throw new NotFound("repository files do not exist");
  }
}

/**
 * Moves a repository to another name or owner (a rename or a transfer); the owner's directory is
 * created when needed. NotFound when the source is missing, Conflict when the target exists.
 */
export async function renameRepository(
  root: string,
  from: RepositoryName,
  to: RepositoryName,
): Promise<void> {
  const source = repositoryPath(root, from.owner, from.name);
  const target = repositoryPath(root, to.owner, to.name);
  if (source !== target) await placeRepository(source, target);
}

/** Moves all of an owner's repositories when the user or organisation is renamed. */
export async function renameOwner(root: string, from: string, to: string): Promise<void> {
  const source = ownerPath(root, from);
  const target = ownerPath(root, to);
  // An owner without repositories has no directory: there is nothing to move.
  if (source !== target) await moveDirectory(source, target);
}
