import { countRows } from "@anvil/core";
import type { Kysely, Selectable } from "kysely";
import { ACCOUNT_ORGANIZATION, type ForgeTables, type OrgUserTable } from "../schemas/tables.ts";
import type { AccountRow } from "./accounts.ts";

export type OrgUserRow = Selectable<OrgUserTable>;

/** Organizations of these visibilities, and any that `memberId` belongs to. */
export interface OrgVisibility {
  visibilities: string[];
  memberId?: number;
}

export interface OrganizationQuery {
  /** Only organizations this account belongs to; only its public memberships when `publicOnly`. */
  member?: { id: number; publicOnly: boolean };
  /** Only what this filter lets through; every organization when absent. */
  visible?: OrgVisibility;
  offset: number;
  limit: number;
}

function orgIdsOf(db: Kysely<ForgeTables>, accountId: number, publicOnly = false) {
  const ids = db.selectFrom("org_user").select("org_id").where("account_id", "=", accountId);
  return publicOnly ? ids.where("is_public", "=", true) : ids;
}

/** A page of organizations in name order, and how many match in all. */
export async function listOrganizations(
  db: Kysely<ForgeTables>,
  query: OrganizationQuery,
): Promise<{ rows: AccountRow[]; total: number }> {
  let selection = db.selectFrom("account").selectAll().where("type", "=", ACCOUNT_ORGANIZATION);
  const { member, visible } = query;
  if (member) selection = selection.where("id", "in", orgIdsOf(db, member.id, member.publicOnly));
  if (visible) {
    selection = selection.where((eb) => {
      const allowed = [];
      if (visible.visibilities.length > 0) allowed.push(eb("visibility", "in", visible.visibilities));
      if (visible.memberId !== undefined) allowed.push(eb("id", "in", orgIdsOf(db, visible.memberId)));
      return eb.or(allowed);
    });
  }
  const [rows, total] = await Promise.all([
    selection.orderBy("lower_name").limit(query.limit).offset(query.offset).execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}

export function findMembership(
  db: Kysely<ForgeTables>,
  orgId: number,
  accountId: number,
): Promise<OrgUserRow | undefined> {
  return db
    .selectFrom("org_user")
    .selectAll()
    .where("org_id", "=", orgId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

/** Makes the account a member (a private one, as Gitea's default); nothing when it already is. */
export async function insertMembership(db: Kysely<ForgeTables>, orgId: number, accountId: number) {
  await db
    .insertInto("org_user")
    .values({ org_id: orgId, account_id: accountId, is_public: false })
    .onConflict((oc) => oc.columns(["org_id", "account_id"]).doNothing())
    .execute();
}

export async function deleteMembership(db: Kysely<ForgeTables>, orgId: number, accountId: number) {
  await db.deleteFrom("org_user").where("org_id", "=", orgId).where("account_id", "=", accountId).execute();
}

export async function setMembershipPublic(
  db: Kysely<ForgeTables>,
  orgId: number,
  accountId: number,
  isPublic: boolean,
): Promise<void> {
  await db
    .updateTable("org_user")
    .set({ is_public: isPublic })
    .where("org_id", "=", orgId)
    .where("account_id", "=", accountId)
    .execute();
}

/** A page of an organization's members in name order (only the public ones when asked). */
export async function listMembers(
  db: Kysely<ForgeTables>,
  query: { orgId: number; publicOnly: boolean; offset: number; limit: number },
): Promise<{ rows: AccountRow[]; total: number }> {
  let selection = db
    .selectFrom("account")
    .innerJoin("org_user", "org_user.account_id", "account.id")
    .selectAll("account")
    .where("org_user.org_id", "=", query.orgId);
  if (query.publicOnly) selection = selection.where("org_user.is_public", "=", true);
  const [rows, total] = await Promise.all([
    selection.orderBy("account.lower_name").limit(query.limit).offset(query.offset).execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}

/** Whether the account belongs to any organization. */
export async function isInAnyOrganization(db: Kysely<ForgeTables>, accountId: number): Promise<boolean> {
  return (await orgIdsOf(db, accountId).limit(1).execute()).length > 0;
}

/** Those of `orgIds` that the account belongs to. */
export async function memberOrgIds(
  db: Kysely<ForgeTables>,
  accountId: number,
  orgIds: number[],
): Promise<number[]> {
  if (orgIds.length === 0) return [];
  const rows = await orgIdsOf(db, accountId).where("org_id", "in", orgIds).execute();
  return rows.map((row) => row.org_id);
}
