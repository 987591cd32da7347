import { NotFound } from "@anvil/core";
import { Type } from "typebox";
import { toApiBranch } from "../../convert/commit.ts";
import { toApiUser } from "../../convert/user.ts";
import { type Branch, type Commit, getBranch, listBranches } from "../../git/index.ts";
import { type AccountRow, findUsersByEmails } from "../../repositories/accounts.ts";
import { AddCollaboratorOption, RepoParams, RepoTopicOptions, RepoUserParams } from "../../schemas/repos.ts";
import { ACCESS_READ, accessName } from "../../services/access.ts";
import type { ForgeDatabase } from "../../services/accounts.ts";
import {
  branchProtectionView,
  firstMatchingRule,
  protectionFor,
  protectionRules,
} from "../../services/branch-protection.ts";
import {
  addCollaborator,
  collaboratorAccess,
  collaborators,
  isCollaborator,
  removeCollaborator,
} from "../../services/collaborators.ts";
import { repositoryFilesPath, requireUnit } from "../../services/repositories.ts";
import {
  addRepositoryTopic,
  removeRepositoryTopic,
  repositoryTopics,
  setTopics,
} from "../../services/topics.ts";
import { type ApiContext, paged, sendPage, signedIn } from "./context.ts";
import { requestedRepository } from "./repos.ts";

const TopicParams = Type.Object({ owner: Type.String(), repo: Type.String(), topic: Type.String() });
const BranchParams = Type.Object({ owner: Type.String(), repo: Type.String(), "*": Type.String() });

/** The forge users the commits' author and committer e-mail addresses name. */
export async function commitUsers(
  database: ForgeDatabase,
  commits: Commit[],
): Promise<(email: string) => AccountRow | undefined> {
  const users = await findUsersByEmails(
    database.db,
    commits.flatMap((commit) => [commit.author.email, commit.committer.email]),
  );
  return (email) => users.get(email.toLowerCase());
}

/** The forge user names of the branches' head commit authors and committers, by e-mail address. */
async function usernamesOf(database: ForgeDatabase, branches: Branch[]): Promise<(email: string) => string> {
  const userOf = await commitUsers(
    database,
    branches.map((branch) => branch.commit),
  );
  return (email) => userOf(email)?.name ?? "";
}

/** Collaborators, topics and branches of a repository. */
export function registerRepoParts(context: ApiContext): void {
  const { app, database, storage } = context;
  const repo = { config: { scope: "repository" as const } };
  // Topics describe what the repository holds: frozen with it while it is archived.
  const topics = { config: { scope: "repository" as const, readOnlyWhenArchived: true } };

  app.get(
    "/repos/:owner/:repo/collaborators",
    { ...repo, schema: { params: RepoParams } },
    async (request, reply) => {
      signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      const window = paged(context, request);
      const page = await collaborators(database, found, window);
      return sendPage(request, reply, window, page, (row) =>
        toApiUser(row, request.caller?.account, request.rootUrl),
      );
    },
  );

  app.get(
    "/repos/:owner/:repo/collaborators/:collaborator",
    { ...repo, schema: { params: RepoUserParams } },
    async (request, reply) => {
      signedIn(request);
      await isCollaborator(
        database,
        await requestedRepository(database, request.params, request),
        request.params.collaborator,
      );
      return reply.status(204).send();
    },
  );

  app.put(
    "/repos/:owner/:repo/collaborators/:collaborator",
    { ...repo, schema: { params: RepoUserParams, body: Type.Optional(AddCollaboratorOption) } },
    async (request, reply) => {
      signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      await addCollaborator(database, found, request.params.collaborator, request.body?.permission);
      return reply.status(204).send();
    },
  );

  app.delete(
    "/repos/:owner/:repo/collaborators/:collaborator",
    { ...repo, schema: { params: RepoUserParams } },
    async (request, reply) => {
      signedIn(request);
      await removeCollaborator(
        database,
        await requestedRepository(database, request.params, request),
        request.params.collaborator,
      );
      return reply.status(204).send();
    },
  );

  app.get(
    "/repos/:owner/:repo/collaborators/:collaborator/permission",
    { ...repo, schema: { params: RepoUserParams } },
    async (request) => {
      const viewer = signedIn(request).account;
      const found = await requestedRepository(database, request.params, request);
      const { account, permission: granted } = await collaboratorAccess(
        database,
        found,
        viewer,
        request.params.collaborator,
      );
      const permission = accessName(granted.mode);
      return {
        permission,
        role_name: permission,
        user: toApiUser(account, request.caller?.account, request.rootUrl),
      };
    },
  );

  app.get("/repos/:owner/:repo/topics", { ...repo, schema: { params: RepoParams } }, async (request) => ({
    topics: await repositoryTopics(database, await requestedRepository(database, request.params, request)),
  }));

  app.put(
    "/repos/:owner/:repo/topics",
    { ...topics, schema: { params: RepoParams, body: RepoTopicOptions } },
    async (request, reply) => {
      signedIn(request);
      await setTopics(
        database,
        await requestedRepository(database, request.params, request),
        request.body.topics,
      );
      return reply.status(204).send();
    },
  );

  app.put(
    "/repos/:owner/:repo/topics/:topic",
    { ...topics, schema: { params: TopicParams } },
    async (request, reply) => {
      signedIn(request);
      await addRepositoryTopic(
        database,
        await requestedRepository(database, request.params, request),
        request.params.topic,
      );
      return reply.status(204).send();
    },
  );

  app.delete(
    "/repos/:owner/:repo/topics/:topic",
    { ...topics, schema: { params: TopicParams } },
    async (request, reply) => {
      signedIn(request);
      await removeRepositoryTopic(
        database,
        await requestedRepository(database, request.params, request),
        request.params.topic,
      );
      return reply.status(204).send();
    },
  );

  app.get(
    "/repos/:owner/:repo/branches",
    { ...repo, schema: { params: RepoParams } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      requireUnit(found, "repo.code", ACCESS_READ);
      const window = paged(context, request);
      const page = await listBranches(repositoryFilesPath(storage, found), window);
      const fullName = `${found.owner.name}/${found.repository.name}`;
      const usernameOf = await usernamesOf(database, page.branches);
      const rules = await protectionRules(database.db, found.repository.id);
      const views = await Promise.all(
        page.branches.map((branch) =>
          branchProtectionView(
            database.db,
            firstMatchingRule(rules, branch.name),
            request.caller?.account,
            found.permission,
          ),
        ),
      );
      const rows = page.branches.map((branch, i) => ({ branch, view: views[i] }));
      return sendPage(request, reply, window, { rows, total: page.total }, ({ branch, view }) =>
        toApiBranch(branch, fullName, request.rootUrl, view, usernameOf),
      );
    },
  );

  app.get(
    "/repos/:owner/:repo/branches/*",
    { ...repo, schema: { params: BranchParams } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      requireUnit(found, "repo.code", ACCESS_READ);
      const name = request.params["*"];
      const branch = await getBranch(repositoryFilesPath(storage, found), name);
      if (!branch) throw new NotFound(`branch does not exist [name: ${name}]`);
      const rule = await protectionFor(database.db, found.repository.id, name);
      return toApiBranch(
        branch,
        `${found.owner.name}/${found.repository.name}`,
        request.rootUrl,
        await branchProtectionView(database.db, rule, request.caller?.account, found.permission),
        await usernamesOf(database, [branch]),
      );
    },
  );
}
