import { access } from "node:fs/promises";
import type { Logger } from "@anvil/core";
import {
  isBranchName,
  listStoredRepositories,
  listTrash,
  placeRepository,
  readRepositoryRowId,
  repositoryExists,
  repositoryPath,
  setAside,
  stageRepository,
  sweepLeftovers,
  writeRepositoryRowId,
} from "../git/index.ts";
import {
  listRepositoryLocations,
  lockRepositoryRows,
  type RepositoryLocation,
} from "../repositories/repo-storage.ts";
import { updateRepository } from "../repositories/repos.ts";
import type { ForgeDatabase } from "./accounts.ts";
import type { Storage } from "./repositories.ts";

/**
 * Staging and trash entries younger than this may belong to a create or delete still running in
 * another process on the same storage; they are left for a later start.
 */
export const LEFTOVER_GRACE_MS = 15 * 60 * 1000;

export interface ReconcileReport {
  /** Directories moved back to their row (a rename or delete cut off before its commit). */
  restored: string[];
  /** Directories no row claims, moved under `.unadopted/`. */
  setAside: string[];
  /** Rows that had no repository and got a new, empty one. */
  rebuilt: number[];
  /** Staging and trash entries removed. */
  swept: string[];
}

/**
 * At start-up, makes storage and rows agree after whatever a crash left: every row gets a valid
 * repository (its own found again, else a new empty one), and every directory without a row is
 * set aside and logged. It holds the repository rows' lock throughout, so a create, rename or
 * delete running in another process is seen either before or after, never halfway.
 */
export async function reconcileStorage(
  database: ForgeDatabase,
  storage: Storage,
  logger: Logger,
  graceMs = LEFTOVER_GRACE_MS,
): Promise<ReconcileReport> {
  const report: ReconcileReport = { restored: [], setAside: [], rebuilt: [], swept: [] };
  await database.db.transaction().execute(async (trx) => {
    await lockRepositoryRows(trx, database.dialect);
    const rows = await listRepositoryLocations(trx);
    if (rows.length > 0 && !(await exists(storage.root))) {
      // Storage that is not there (a share not mounted) is no reason to rebuild every repository.
      logger.error({ root: storage.root }, "repository storage is missing; not reconciled");
      return;
    }
    const pathOf = (row: RepositoryLocation) => repositoryPath(storage.root, row.owner_name, row.name);
    const claimed = new Set(rows.map(pathOf));
    const lacking = new Map<number, RepositoryLocation>();
    for (const row of rows) {
      if (await repositoryExists(pathOf(row))) await markRowId(pathOf(row), row.id);
      else lacking.set(row.id, row);
    }
    const strays = (await listStoredRepositories(storage.root)).filter((path) => !claimed.has(path));
    for (const found of [...strays, ...(await listTrash(storage.root))]) {
      const row = lacking.get((await readRepositoryRowId(found)) ?? 0);
      if (row === undefined || !(await repositoryExists(found))) continue;
      await clearPlace(storage.root, pathOf(row), report);
      await placeRepository(found, pathOf(row));
      lacking.delete(row.id);
      report.restored.push(pathOf(row));
      logger.warn({ repository: row.id, from: found, to: pathOf(row) }, "repository restored to its row");
    }
    for (const stray of strays) {
      if (!(await exists(stray))) continue;
      const where = await setAside(storage.root, stray);
      report.setAside.push(where);
      logger.warn({ path: stray, movedTo: where }, "unadopted repository directory set aside");
    }
    for (const row of lacking.values()) {
      await clearPlace(storage.root, pathOf(row), report);
      const branch = isBranchName(row.default_branch) ? row.default_branch : "main";
      const staged = await stageRepository(storage.root, { defaultBranch: branch });
      await writeRepositoryRowId(staged, row.id);
      await placeRepository(staged, pathOf(row));
      await updateRepository(trx, row.id, { is_empty: true, default_branch: branch });
      report.rebuilt.push(row.id);
      logger.error(
        { repository: row.id, path: pathOf(row) },
        "repository was missing; an empty one took its place",
      );
    }
    report.swept = await sweepLeftovers(storage.root, graceMs);
    if (report.swept.length > 0) logger.info({ swept: report.swept }, "crash leftovers removed");
  });
  return report;
}

// A directory at a row's place that is not a repository (a build cut off by an older version).
async function clearPlace(root: string, path: string, report: ReconcileReport): Promise<void> {
  if (await exists(path)) report.setAside.push(await setAside(root, path));
}

// Repositories made before rows were written into them get their id, so a later cut-off move of
// theirs can be matched to its row too.
async function markRowId(path: string, id: number): Promise<void> {
  if ((await readRepositoryRowId(path)) !== id) await writeRepositoryRowId(path, id);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
