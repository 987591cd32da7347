import { randomUUID } from "node:crypto";
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { runGit } from "./run.ts";
import { initRepository, setDefaultBranch } from "./storage.ts";

// The places under the storage root that are not repositories. Their names start with a dot,
// which no owner name may (repository-path.ts), so they never meet a repository's path.
//   .staging/   repositories being built, moved into place once whole
//   .trash/     deleted repositories on their way out
//   .unadopted/ directories no row claimed, set aside by the start-up reconcile, kept for a person
const STAGING = ".staging";
const TRASH = ".trash";
const UNADOPTED = ".unadopted";

/**
 * A file in each bare repository naming the row it belongs to, so a directory found without its
 * row (a move cut off by a crash) can be matched to it again. git ignores files it does not know.
 */
const ROW_ID_FILE = "anvil-repository-id";

/**
 * Builds an empty bare repository (see initRepository) under a temporary name, for the caller to
 * move into place once it is whole: a crash meanwhile leaves only a staging directory behind.
 */
export async function stageRepository(root: string, options: { defaultBranch: string }): Promise<string> {
  const path = join(resolve(root), STAGING, `${leftoverName()}.git`);
  await initRepository(path, options);
  return path;
}

/**
 * Builds a bare copy of the repository at `source` (a fork) under a temporary name, as
 * stageRepository does. A clone from a local path hard-links the object files where the
 * filesystem allows and copies them otherwise (an explicit `--local` would fail instead): the copy
 * shares the parent's disk space yet owns its objects, so it outlives the parent's deletion.
 */
export async function stageClone(
  root: string,
  source: string,
  options: { defaultBranch: string },
): Promise<string> {
  const path = join(resolve(root), STAGING, `${leftoverName()}.git`);
  await mkdir(dirname(path), { recursive: true });
  try {
    await runGit(["clone", "--bare", "--quiet", "--template=", "--", source, path]);
    // The copy stands alone: no remote pointing into another repository's directory.
    await runGit([`--git-dir=${path}`, "config", "--remove-section", "remote.origin"], {
      acceptExitCodes: [128],
    });
    await runGit([`--git-dir=${path}`, "config", "receive.denyNonFastForwards", "false"]);
    await setDefaultBranch(path, options.defaultBranch);
    return path;
  } catch (error) {
    await rm(path, { recursive: true, force: true });
    throw error;
  }
}

export async function writeRepositoryRowId(repoPath: string, id: number): Promise<void> {
  await writeFile(join(repoPath, ROW_ID_FILE), `${id}\n`);
}

/** The row id a repository was made for, or undefined when it carries none (made before ids were). */
export async function readRepositoryRowId(repoPath: string): Promise<number | undefined> {
  try {
    const id = Number((await readFile(join(repoPath, ROW_ID_FILE), "utf8")).trim());
    return Number.isSafeInteger(id) && id > 0 ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Moves a repository's directory out of its path in one step, into the trash: its name is free at
 * once and a crash leaves nothing half-deleted there. Answers where it went; undefined when missing.
 */
export async function moveToTrash(root: string, repoPath: string): Promise<string | undefined> {
  const trash = join(resolve(root), TRASH);
  await mkdir(trash, { recursive: true });
  const doomed = join(trash, leftoverName());
  try {
    await rename(repoPath, doomed);
    return doomed;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Removes a repository's directory by way of the trash (see moveToTrash); missing is not an error. */
export async function discardRepository(root: string, repoPath: string): Promise<void> {
  const doomed = await moveToTrash(root, repoPath);
  if (doomed !== undefined) await rm(doomed, { recursive: true, force: true });
}

/**
 * Moves `<root>/<owner>/<entry>`, which no row claims, to `.unadopted/<owner>/<entry>[.n]`, where it
 * frees its name and waits for a person, as Gitea's unadopted repositories. Answers where it went.
 */
export async function setAside(root: string, path: string): Promise<string> {
  const folder = join(resolve(root), UNADOPTED, basename(dirname(path)));
  const entry = basename(path);
  await mkdir(folder, { recursive: true });
  for (let attempt = 0; ; attempt++) {
    const target = join(folder, attempt === 0 ? entry : `${entry}.${attempt}`);
    try {
      // rename(2) replaces an empty directory only: claim the name first, then move onto it.
      await mkdir(target);
      await rename(path, target);
      return target;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/** The paths of the `<owner>/<name>.git` directories under the root, whether a row claims them or not. */
export async function listStoredRepositories(root: string): Promise<string[]> {
  const base = resolve(root);
  const found: string[] = [];
  for (const owner of await directoriesIn(base)) {
    if (owner.startsWith(".")) continue;
    for (const entry of await directoriesIn(join(base, owner)))
      if (entry.endsWith(".git")) found.push(join(base, owner, entry));
  }
  return found;
}

/** The deleted repositories not yet removed: one of them may be a delete that never committed. */
export async function listTrash(root: string): Promise<string[]> {
  const folder = join(resolve(root), TRASH);
  return (await directoriesIn(folder)).map((entry) => join(folder, entry));
}

// Staging and trash entries are named `<milliseconds since the epoch>-<uuid>`: a directory moved
// into the trash keeps its old times, so the name is what tells when it got there.
function leftoverName(): string {
  return `${Date.now()}-${randomUUID()}`;
}

async function leftoverSince(path: string, entry: string): Promise<number | undefined> {
  const named = Number.parseInt(entry, 10);
  if (Number.isSafeInteger(named) && named > 0) return named;
  return (await lstat(path).catch(() => undefined))?.mtimeMs;
}

/**
 * Deletes what crashed creates and deletes left in staging and trash, once older than `graceMs`:
 * a younger one may belong to a create or delete still running in another process.
 */
export async function sweepLeftovers(root: string, graceMs: number): Promise<string[]> {
  const swept: string[] = [];
  const cutoff = Date.now() - graceMs;
  for (const place of [STAGING, TRASH]) {
    const folder = join(resolve(root), place);
    for (const entry of await readdirIfAny(folder)) {
      const path = join(folder, entry);
      const since = await leftoverSince(path, entry);
      if (since === undefined || since > cutoff) continue;
      await rm(path, { recursive: true, force: true });
      swept.push(path);
    }
  }
  return swept;
}

async function readdirIfAny(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

async function directoriesIn(path: string): Promise<string[]> {
  try {
    const entries = await readdir(path, { withFileTypes: true });
    return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
