import { Conflict, Forbidden, Invalid, NotFound, toStoredTime } from "@anvil/core";
import type { Kysely } from "kysely";
import {
  type Branch,
  checkBranchName,
  checkTagName,
  createTag,
  deleteTag,
  getBranch,
  getTag,
  isBranchName,
  isEmpty,
  isTagName,
  RefUpdateRefused,
  resolveCommit,
  setDefaultBranch,
  type Tag,
  updateRefs,
} from "../git/index.ts";
import type { AccountRow } from "../repositories/accounts.ts";
import { findBranchProtection, updateBranchProtection } from "../repositories/branch-protections.ts";
import { findReleaseByTag } from "../repositories/releases.ts";
import { updateRepository } from "../repositories/repos.ts";
import type { ForgeTables } from "../schemas/tables.ts";
import { ACCESS_ADMIN, ACCESS_WRITE } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { canPush, isRuleNameSpecial, protectionFor } from "./branch-protection.ts";
import {
  announceRefChanges,
  type RepositoryContext,
  repositoryFilesPath,
  requireUnit,
  type Storage,
} from "./repositories.ts";

// Branches and tags made, renamed and deleted through the API: each a git ref transaction checked
// against the value it expects (see git/ref-updates.ts), then announced to webhooks as a push
// that made the same change would be (create, push, delete: services/webhook-push.ts).

const HEADS = "refs/heads/";
const TAGS = "refs/tags/";
const EMPTY = "Git Repository is empty.";

/**
 * A new branch or tag name: git's rules, and not a full ref name (`refs/heads/x` would read as
 * another ref wherever a short name is taken).
 */
function checkNewRefName(name: string, field: string, check: (name: string, field: string) => void): void {
  check(name, field);
  if (name.startsWith("refs/"))
    throw new Invalid(`[${field}]: GitRefName`, { [field]: ["is not a valid ref name (GitRefName)"] });
}

function requireCodeWriter(context: RepositoryContext): void {
  requireUnit(context, "repo.code", ACCESS_WRITE);
}

async function requireContent(path: string): Promise<void> {
  if (await isEmpty(path)) throw new NotFound(EMPTY);
}

export interface NewBranch {
  new_branch_name: string;
  old_ref_name?: string;
  old_branch_name?: string;
}

/**
 * Creates a branch at the commit `old_ref_name` names (any branch, tag or commit), or at the tip
 * of `old_branch_name`, or of the default branch. Conflict when the name is taken, even by a
 * request racing this one; NotFound when the starting point does not exist.
 */
export async function createBranch(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  doer: AccountRow,
  input: NewBranch,
): Promise<Branch> {
  requireCodeWriter(context);
  const path = repositoryFilesPath(storage, context);
  await requireContent(path);
  checkNewRefName(input.new_branch_name, "BranchName", checkBranchName);
  const name = input.new_branch_name;
  let start: string | undefined;
  if (input.old_ref_name) {
    start = await resolveCommit(path, input.old_ref_name);
  } else {
    const from = input.old_branch_name || context.repository.default_branch;
    start = isBranchName(from) ? await resolveCommit(path, `${HEADS}${from}`) : undefined;
  }
  if (start === undefined) throw new NotFound("The old branch does not exist");
  // Creating a branch a rule protects is a push to it (Gitea's pushes it, and its hook decides).
  const rule = await protectionFor(database.db, context.repository.id, name);
  if (rule && !(await canPush(database.db, rule, doer, context.permission)))
    throw new Forbidden(`Not allowed to push to protected branch ${name}`);
  if (await getTag(path, name)) throw new Conflict("The branch with the same tag already exists.");
  try {
    await updateRefs(path, [{ ref: `${HEADS}${name}`, create: start }]);
  } catch (error) {
    if (!(error instanceof RefUpdateRefused)) throw error;
    // Taken by an existing branch (or one made meanwhile), or by a branch path around it.
    throw new Conflict(
      (await getBranch(path, name))
        ? "The branch already exists."
        : "The branch with the same name already exists.",
    );
  }
  await announceRefChanges(database, path, context, doer, new Map(), new Map([[`${HEADS}${name}`, start]]));
  const branch = await getBranch(path, name);
  if (!branch) throw new NotFound(`branch does not exist [name: ${name}]`);
  return branch;
}

/** Deletes a branch that is neither the default one nor protected by any rule (403s, as Gitea). */
export async function deleteBranch(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  doer: AccountRow,
  name: string,
): Promise<void> {
  requireCodeWriter(context);
  const path = repositoryFilesPath(storage, context);
  await requireContent(path);
  const branch = await getBranch(path, name);
  if (!branch) throw new NotFound(`branch does not exist [name: ${name}]`);
  if (name === context.repository.default_branch) throw new Forbidden("can not delete default branch");
  if (await protectionFor(database.db, context.repository.id, name)) throw new Forbidden("branch protected");
  const ref = `${HEADS}${name}`;
  try {
    await updateRefs(path, [{ ref, delete: branch.commit.id }]);
  } catch (error) {
    // Moved or deleted since it was read: what the caller asked to delete is gone either way, or
    // became something they have not seen.
    if (error instanceof RefUpdateRefused) throw new Conflict("branch was changed meanwhile, try again");
    throw error;
  }
  await announceRefChanges(database, path, context, doer, new Map([[ref, branch.commit.id]]), new Map());
}

/**
 * Renames a branch (Gitea's RenameBranch): the default or a protected branch by repository admins
 * only, never one a glob rule protects; a rule naming the branch follows it, and so does the
 * repository's default branch. The refs move in one transaction; if the rows cannot follow, the
 * refs are moved back.
 */
export async function renameBranch(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  doer: AccountRow,
  from: string,
  to: string,
): Promise<void> {
  requireCodeWriter(context);
  const path = repositoryFilesPath(storage, context);
  await requireContent(path);
  checkNewRefName(to, "Name", checkBranchName);
  const { repository } = context;
  const isDefault = from === repository.default_branch;
  const rule = await protectionFor(database.db, repository.id, from);
  if ((isDefault || rule) && context.permission.mode < ACCESS_ADMIN)
    throw new Forbidden("User must be a repo or site admin to rename default or protected branches.");
  if (rule && isRuleNameSpecial(rule.rule_name))
    throw new Forbidden("Branch is protected by glob-based protection rules.");
  const branch = await getBranch(path, from);
  if (!branch) throw new NotFound("Branch doesn't exist.");
  const sameName = "Cannot rename a branch using the same name or rename to a branch that already exists.";
  if (from === to || (await getBranch(path, to))) throw new Invalid(sameName);
  const id = branch.commit.id;
  const move = (a: string, b: string) =>
    updateRefs(path, [
      { ref: `${HEADS}${b}`, create: id },
      { ref: `${HEADS}${a}`, delete: id },
    ]);
  try {
    await move(from, to);
  } catch (error) {
    if (error instanceof RefUpdateRefused) throw new Invalid(sameName);
    throw error;
  }
  try {
    if (isDefault) await setDefaultBranch(path, to);
    await database.db.transaction().execute(async (trx) => {
      if (isDefault) await updateRepository(trx, repository.id, { default_branch: to });
      await renamePlainRule(trx, repository.id, from, to, database.dialect);
    });
  } catch (error) {
    if (isDefault) await setDefaultBranch(path, from);
    await move(to, from);
    throw error;
  }
  await announceRefChanges(
    database,
    path,
    context,
    doer,
    new Map([[`${HEADS}${from}`, id]]),
    new Map([[`${HEADS}${to}`, id]]),
  );
}

// A rule that names exactly the renamed branch protects it under its new name, as in Gitea.
async function renamePlainRule(
  trx: Kysely<ForgeTables>,
  repoId: number,
  from: string,
  to: string,
  dialect: ForgeDatabase["dialect"],
): Promise<void> {
  const rule = await findBranchProtection(trx, repoId, from);
  if (rule && !isRuleNameSpecial(rule.rule_name))
    await updateBranchProtection(trx, rule.id, {
      rule_name: to,
      updated_at: toStoredTime(new Date(), dialect),
    });
}

// --- Tags ----------------------------------------------------------------------------------------

export interface NewTagInput {
  tag_name: string;
  target?: string;
  message?: string;
}

/**
 * Creates a tag at the commit `target` names (the default branch by default): annotated, tagged
 * by the caller, when there is a message; lightweight otherwise. Conflict when the name is taken.
 */
export async function createRepositoryTag(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  doer: AccountRow,
  input: NewTagInput,
): Promise<Tag> {
  requireCodeWriter(context);
  const path = repositoryFilesPath(storage, context);
  checkNewRefName(input.tag_name, "TagName", checkTagName);
  const target = input.target || context.repository.default_branch;
  const commit = await resolveCommit(path, target);
  if (commit === undefined) throw new NotFound(`target not found: ${target}`);
  let tag: Tag;
  try {
    tag = await createTag(path, {
      name: input.tag_name,
      target: commit,
      message: input.message,
      tagger: { name: doer.full_name || doer.name, email: doer.email },
    });
  } catch (error) {
    if (error instanceof RefUpdateRefused) throw new Conflict(`tag already exists [name: ${input.tag_name}]`);
    throw error;
  }
  await announceRefChanges(
    database,
    path,
    context,
    doer,
    new Map(),
    new Map([[`${TAGS}${tag.name}`, tag.id]]),
  );
  return tag;
}

/** Whether a release (a draft too) is made from the tag: Gitea refuses to delete such a tag directly (409). */
export async function tagHasRelease(
  db: Kysely<ForgeTables>,
  repoId: number,
  tagName: string,
): Promise<boolean> {
  return (await findReleaseByTag(db, repoId, tagName)) !== undefined;
}

export async function deleteRepositoryTag(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  doer: AccountRow,
  name: string,
): Promise<void> {
  requireCodeWriter(context);
  const path = repositoryFilesPath(storage, context);
  const tag = isTagName(name) ? await getTag(path, name) : undefined;
  if (!tag) throw new NotFound();
  if (await tagHasRelease(database.db, context.repository.id, name))
    throw new Conflict("a tag attached to a release cannot be deleted directly");
  try {
    await deleteTag(path, tag);
  } catch (error) {
    if (error instanceof RefUpdateRefused) throw new NotFound();
    throw error;
  }
  await announceRefChanges(database, path, context, doer, new Map([[`${TAGS}${name}`, tag.id]]), new Map());
}
