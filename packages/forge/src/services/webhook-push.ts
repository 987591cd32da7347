import type { Kysely } from "kysely";
import { type FileChanges, toPayloadCommit } from "../convert/commit.ts";
import { toApiUser } from "../convert/user.ts";
import { type Commit, commitFileChanges, getCommit, pushedCommits, ZERO_ID } from "../git/index.ts";
import { type AccountRow, findUsersByEmails } from "../repositories/accounts.ts";
import type { RepositoryRow } from "../repositories/repos.ts";
import type { ForgeTables } from "../schemas/tables.ts";
import { type RepositoryEvent, webhookUrls } from "./webhook-events.ts";

// The git events of a push, as Gitea raises them from its post-receive hook: for each ref the push
// changed, `create` for a new branch or tag, `push` for a branch or tag that now points somewhere
// (with the commits it brought), `delete` for one removed.

// Gitea lists at most FEED_MAX_COMMIT_NUM (5) commits in a push payload, and the last 10 of a new
// branch's history; total_commits counts them all.
const LISTED_COMMITS = 5;
const NEW_REF_COMMITS = 10;
// A push of thousands of refs (a mirror, an import of every tag) raises events for the first
// ones in ref-name order only, so the work after a push stays bounded.
const MAX_REF_EVENTS = 200;
const HEADS = "refs/heads/";
const TAGS = "refs/tags/";

async function fileChanges(repoPath: string, id: string): Promise<FileChanges> {
  // A commit too large to list its files still arrives, with empty lists.
  return commitFileChanges(repoPath, id).catch(() => ({ added: [], removed: [], modified: [] }));
}

/** A push payload's commit renderer: forge user names by author and committer e-mail. */
async function payloadCommits(
  db: Kysely<ForgeTables>,
  repoPath: string,
  fullName: string,
  commits: Commit[],
) {
  const users = await findUsersByEmails(
    db,
    commits.flatMap((commit) => [commit.author.email, commit.committer.email]),
  );
  const usernameOf = (email: string) => users.get(email.toLowerCase())?.name ?? "";
  const rootUrl = webhookUrls(db).rootUrl;
  return Promise.all(
    commits.map(async (commit) =>
      toPayloadCommit(commit, fullName, rootUrl, usernameOf, await fileChanges(repoPath, commit.id)),
    ),
  );
}

interface RefUpdate {
  ref: string;
  before: string;
  after: string;
}

/** Gitea's PushPayload fields (repository and sender are added by queueRepositoryEvent). */
async function pushFields(
  db: Kysely<ForgeTables>,
  repoPath: string,
  fullName: string,
  update: RefUpdate,
  listed: { commits: Commit[]; total: number },
  head: Commit | undefined,
  pusher: AccountRow,
) {
  const rootUrl = webhookUrls(db).rootUrl;
  const commits = await payloadCommits(db, repoPath, fullName, listed.commits.slice(0, LISTED_COMMITS));
  const headCommit =
    head &&
    (commits.find((c) => c.id === head.id) ?? (await payloadCommits(db, repoPath, fullName, [head]))[0]);
  return {
    ref: update.ref,
    before: update.before,
    after: update.after,
    compare_url:
      update.before === ZERO_ID
        ? rootUrl.href
        : `${rootUrl.href}${fullName}/compare/${update.before}...${update.after}`,
    commits,
    total_commits: listed.total,
    head_commit: headCommit ?? null,
    pusher: toApiUser(pusher, undefined, rootUrl),
  };
}

/**
 * The events of a push, from the ref tips before it and after it; git reads happen here, so that
 * the transaction that queues the events only writes.
 */
export async function pushEvents(
  db: Kysely<ForgeTables>,
  repoPath: string,
  repository: RepositoryRow,
  owner: AccountRow,
  pusher: AccountRow,
  tips: { before: Map<string, string>; after: Map<string, string> },
): Promise<RepositoryEvent[]> {
  const fullName = `${owner.name}/${repository.name}`;
  const events: RepositoryEvent[] = [];
  const refs = new Set([...tips.before.keys(), ...tips.after.keys()]);
  const changed = [...refs].sort().filter((ref) => tips.before.get(ref) !== tips.after.get(ref));
  for (const ref of changed.slice(0, MAX_REF_EVENTS)) {
    const before = tips.before.get(ref);
    const after = tips.after.get(ref);
    const isBranch = ref.startsWith(HEADS);
    const name = ref.slice(isBranch ? HEADS.length : TAGS.length);
    const refType = isBranch ? "branch" : "tag";
    const base = { repoId: repository.id, senderId: pusher.id, branch: isBranch ? name : undefined };
    if (after === undefined) {
      events.push({ ...base, type: "delete", fields: { ref: name, ref_type: refType, pusher_type: "user" } });
      continue;
    }
    if (before === undefined)
      events.push({ ...base, type: "create", fields: { ref: name, ref_type: refType, sha: after } });
    const listed = isBranch
      ? await pushedCommits(repoPath, after, before, before === undefined ? NEW_REF_COMMITS : LISTED_COMMITS)
      : { commits: [], total: 0 };
    const head = isBranch ? (listed.commits[0] ?? (await getCommit(repoPath, after))) : undefined;
    const update = { ref, before: before ?? ZERO_ID, after };
    events.push({
      ...base,
      type: "push",
      fields: await pushFields(db, repoPath, fullName, update, listed, head, pusher),
    });
  }
  return events;
}

/**
 * Gitea's test delivery: a push onto the default branch of the commit `commitRef` names (its head
 * by default); in an empty repository, a made-up commit.
 */
export async function testPushFields(
  db: Kysely<ForgeTables>,
  repoPath: string,
  repository: RepositoryRow,
  owner: AccountRow,
  pusher: AccountRow,
  commitRef?: string,
): Promise<Record<string, unknown>> {
  const fullName = `${owner.name}/${repository.name}`;
  const ref = `${HEADS}${repository.default_branch}`;
  const head = await getCommit(repoPath, commitRef ?? ref).catch(() => undefined);
  const now = new Date().toISOString();
  const commit: Commit = head ?? {
    id: ZERO_ID,
    tree: ZERO_ID,
    parents: [],
    message: "This is a fake commit",
    author: { name: "Ghost", email: "", date: now },
    committer: { name: "Ghost", email: "", date: now },
  };
  const update = { ref, before: commit.id, after: commit.id };
  return pushFields(db, repoPath, fullName, update, { commits: [commit], total: 1 }, commit, pusher);
}
