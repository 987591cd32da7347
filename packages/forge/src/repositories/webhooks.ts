import { countRows } from "@anvil/core";
import type { Insertable, Kysely, Selectable, Updateable } from "kysely";
import type { ForgeTables, WebhookTable } from "../schemas/tables.ts";

export type WebhookRow = Selectable<WebhookTable>;

/**
 * Whose hooks a request is about: a repository's, an account's (user or organization), or the
 * site's (`system` true: system hooks, false: default hooks, undefined: both).
 */
export type HookOwner =
  | { kind: "repository"; repoId: number }
  | { kind: "account"; ownerId: number }
  | { kind: "site"; system?: boolean };

function ofOwner(db: Kysely<ForgeTables>, owner: HookOwner) {
  const hooks = db.selectFrom("webhook");
  if (owner.kind === "repository") return hooks.where("repo_id", "=", owner.repoId);
  if (owner.kind === "account") return hooks.where("owner_id", "=", owner.ownerId);
  const site = hooks.where("repo_id", "is", null).where("owner_id", "is", null);
  return owner.system === undefined ? site : site.where("is_system", "=", owner.system);
}

export function insertWebhook(db: Kysely<ForgeTables>, hook: Insertable<WebhookTable>): Promise<WebhookRow> {
  return db.insertInto("webhook").values(hook).returningAll().executeTakeFirstOrThrow();
}

export function findWebhook(
  db: Kysely<ForgeTables>,
  owner: HookOwner,
  id: number,
): Promise<WebhookRow | undefined> {
  return ofOwner(db, owner).selectAll().where("id", "=", id).executeTakeFirst();
}

export async function listWebhooks(
  db: Kysely<ForgeTables>,
  owner: HookOwner,
  window: { offset: number; limit: number },
): Promise<{ rows: WebhookRow[]; total: number }> {
  const selection = ofOwner(db, owner).selectAll();
  const [rows, total] = await Promise.all([
    selection.orderBy("id").limit(window.limit).offset(window.offset).execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}

export function updateWebhook(
  db: Kysely<ForgeTables>,
  id: number,
  changes: Updateable<WebhookTable>,
): Promise<WebhookRow | undefined> {
  return db.updateTable("webhook").set(changes).where("id", "=", id).returningAll().executeTakeFirst();
}

export async function deleteWebhook(db: Kysely<ForgeTables>, owner: HookOwner, id: number): Promise<boolean> {
  const found = await findWebhook(db, owner, id);
  if (!found) return false;
  const result = await db.deleteFrom("webhook").where("id", "=", found.id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/**
 * The active hooks that hear of a change to a repository: its own, its owner's (organization or
 * user), and the site's system hooks; each subscribed event is the caller's to check.
 */
export function hooksHearing(
  db: Kysely<ForgeTables>,
  repoId: number,
  ownerId: number,
): Promise<WebhookRow[]> {
  return db
    .selectFrom("webhook")
    .selectAll()
    .where("active", "=", true)
    .where((eb) =>
      eb.or([
        eb("repo_id", "=", repoId),
        eb("owner_id", "=", ownerId),
        eb.and([eb("repo_id", "is", null), eb("owner_id", "is", null), eb("is_system", "=", true)]),
      ]),
    )
    .orderBy("id")
    .execute();
}

/** Gives a new repository a hook of its own for each default hook of the site (Gitea's default webhooks). */
export async function copyDefaultHooks(
  db: Kysely<ForgeTables>,
  repoId: number,
  now: string | Date,
): Promise<void> {
  const defaults = await ofOwner(db, { kind: "site", system: false }).selectAll().orderBy("id").execute();
  if (defaults.length === 0) return;
  await db
    .insertInto("webhook")
    .values(
      defaults.map(({ id: _id, created_at: _created, updated_at: _updated, ...hook }) => ({
        ...hook,
        repo_id: repoId,
        owner_id: null,
        is_system: false,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
}
