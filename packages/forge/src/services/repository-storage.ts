import { rm } from "node:fs/promises";
import type { Kysely } from "kysely";
import {
  discardRepository,
  moveToTrash,
  placeRepository,
  type RepositoryName,
  repositoryPath,
  stageClone,
  stageRepository,
  writeRepositoryRowId,
} from "../git/index.ts";
import { deleteRepositoryRow } from "../repositories/repos.ts";
import type { ForgeTables } from "../schemas/tables.ts";
import type { ForgeDatabase } from "./accounts.ts";
import type { Storage } from "./repositories.ts";

// A repository row and its bare repository change together, whatever stops the process midway:
// each change moves a whole directory with one rename(2) inside the transaction that writes the
// row, so the row commits only once the directory is in place. A crash before the commit leaves
// the row as it was and a directory that the start-up reconcile (storage-reconcile.ts) puts back,
// finds by the row id it carries, or sets aside; never a row without its repository.

export interface NewBareRepository {
  defaultBranch: string;
  /** The repository to copy (a fork's parent); without it, the repository starts empty. */
  copyOf?: RepositoryName;
  /** Writes the first content (auto-init) while the repository is still out of sight. */
  fill?: (repoPath: string) => Promise<void>;
}

/**
 * Builds the bare repository under a temporary name, then inserts its row with `insert` (whose
 * unique constraint claims the name) and moves the repository into place in that transaction.
 * Conflict when files already sit at the place; nothing is left behind on any failure.
 */
export async function storeNewRepository<T extends { id: number }>(
  database: ForgeDatabase,
  storage: Storage,
  target: RepositoryName,
  build: NewBareRepository,
  insert: (trx: Kysely<ForgeTables>) => Promise<T>,
): Promise<T> {
  const path = repositoryPath(storage.root, target.owner, target.name);
  const staged = build.copyOf
    ? await stageClone(storage.root, repositoryPath(storage.root, build.copyOf.owner, build.copyOf.name), {
        defaultBranch: build.defaultBranch,
      })
    : await stageRepository(storage.root, { defaultBranch: build.defaultBranch });
  let placed = false;
  try {
    await build.fill?.(staged);
    return await database.db.transaction().execute(async (trx) => {
      const row = await insert(trx);
      await writeRepositoryRowId(staged, row.id);
      await placeRepository(staged, path);
      placed = true;
      return row;
    });
  } catch (error) {
    // The row did not commit: the repository that reached its place belongs to nobody.
    if (placed) await discardRepository(storage.root, path);
    throw error;
  } finally {
    if (!placed) await rm(staged, { recursive: true, force: true });
  }
}

/**
 * A rename or a transfer: `change` writes the row's new name or owner, and the bare repository
 * moves from `from` to `to` in the same transaction. Conflict when files sit at the target; on
 * any failure the row and the directory stay where they were.
 */
export async function moveRepository<T>(
  database: ForgeDatabase,
  storage: Storage,
  from: RepositoryName,
  to: RepositoryName,
  change: (trx: Kysely<ForgeTables>) => Promise<T>,
): Promise<T> {
  const source = repositoryPath(storage.root, from.owner, from.name);
  const target = repositoryPath(storage.root, to.owner, to.name);
  let moved = false;
  try {
    return await database.db.transaction().execute(async (trx) => {
      const result = await change(trx);
      // Names differing only in case share one directory.
      if (source !== target) {
        await placeRepository(source, target);
        moved = true;
      }
      return result;
    });
  } catch (error) {
    if (moved) await placeRepository(target, source);
    throw error;
  }
}

/**
 * Deletes the row and moves the repository to the trash in one transaction (after `before`, which
 * writes what goes with the deletion), then empties it.
 */
export async function removeRepository(
  database: ForgeDatabase,
  storage: Storage,
  id: number,
  location: RepositoryName,
  before?: (trx: Kysely<ForgeTables>) => Promise<void>,
): Promise<void> {
  const path = repositoryPath(storage.root, location.owner, location.name);
  let trashed: string | undefined;
  try {
    await database.db.transaction().execute(async (trx) => {
      await before?.(trx);
      await deleteRepositoryRow(trx, id);
      trashed = await moveToTrash(storage.root, path);
    });
  } catch (error) {
    if (trashed !== undefined) await placeRepository(trashed, path);
    throw error;
  }
  if (trashed !== undefined) await rm(trashed, { recursive: true, force: true });
}
