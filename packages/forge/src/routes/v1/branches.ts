import { NotFound } from "@anvil/core";
import { Type } from "typebox";
import { toApiBranchProtection } from "../../convert/branch-protection.ts";
import { toApiBranch } from "../../convert/commit.ts";
import { toApiTag } from "../../convert/tag.ts";
import { getTag, listTags } from "../../git/index.ts";
import { findUsersByEmails } from "../../repositories/accounts.ts";
import {
  CreateBranchProtectionOption,
  CreateBranchRepoOption,
  CreateTagOption,
  EditBranchProtectionOption,
  RenameBranchRepoOption,
} from "../../schemas/branches.ts";
import { RepoParams } from "../../schemas/repos.ts";
import { ACCESS_READ } from "../../services/access.ts";
import {
  allowListNames,
  type BranchProtection,
  branchProtectionView,
  createBranchProtection,
  editBranchProtection,
  getBranchProtection,
  listRepositoryProtections,
  protectionFor,
  removeBranchProtection,
} from "../../services/branch-protection.ts";
import {
  createBranch,
  createRepositoryTag,
  deleteBranch,
  deleteRepositoryTag,
  renameBranch,
} from "../../services/branches.ts";
import { repositoryFilesPath, requireUnit } from "../../services/repositories.ts";
import { type ApiContext, paged, sendPage, signedIn } from "./context.ts";
import { requestedRepository } from "./repos.ts";

// Branches made, renamed and deleted, tags, and branch protection rules of a repository. Branch
// and tag names may hold slashes, so they are the path's tail (`*`), as in Gitea.

const TailParams = Type.Object({ owner: Type.String(), repo: Type.String(), "*": Type.String() });
const RuleParams = Type.Object({ owner: Type.String(), repo: Type.String(), name: Type.String() });

export function registerBranches(context: ApiContext): void {
  const { app, database, storage } = context;
  // Branches and tags are what the repository holds: frozen with it while it is archived.
  const code = { config: { scope: "repository" as const, readOnlyWhenArchived: true } };

  app.post(
    "/repos/:owner/:repo/branches",
    { ...code, schema: { params: RepoParams, body: CreateBranchRepoOption } },
    async (request, reply) => {
      const caller = signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      const branch = await createBranch(database, storage, found, caller.account, request.body);
      const emails = [branch.commit.author.email, branch.commit.committer.email];
      const users = await findUsersByEmails(database.db, emails);
      const rule = await protectionFor(database.db, found.repository.id, branch.name);
      const view = await branchProtectionView(database.db, rule, caller.account, found.permission);
      return reply
        .status(201)
        .send(
          toApiBranch(
            branch,
            `${found.owner.name}/${found.repository.name}`,
            request.rootUrl,
            view,
            (email) => users.get(email.toLowerCase())?.name ?? "",
          ),
        );
    },
  );

  app.delete(
    "/repos/:owner/:repo/branches/*",
    { ...code, schema: { params: TailParams } },
    async (request, reply) => {
      const caller = signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      await deleteBranch(database, storage, found, caller.account, request.params["*"]);
      return reply.status(204).send();
    },
  );

  app.patch(
    "/repos/:owner/:repo/branches/*",
    { ...code, schema: { params: TailParams, body: RenameBranchRepoOption } },
    async (request, reply) => {
      const caller = signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      await renameBranch(database, storage, found, caller.account, request.params["*"], request.body.name);
      return reply.status(204).send();
    },
  );

  app.get("/repos/:owner/:repo/tags", { ...code, schema: { params: RepoParams } }, async (request, reply) => {
    const found = await requestedRepository(database, request.params, request);
    requireUnit(found, "repo.code", ACCESS_READ);
    const window = paged(context, request);
    const page = await listTags(repositoryFilesPath(storage, found), window);
    const fullName = `${found.owner.name}/${found.repository.name}`;
    return sendPage(request, reply, window, { rows: page.tags, total: page.total }, (tag) =>
      toApiTag(tag, fullName, request.rootUrl),
    );
  });

  app.get("/repos/:owner/:repo/tags/*", { ...code, schema: { params: TailParams } }, async (request) => {
    const found = await requestedRepository(database, request.params, request);
    requireUnit(found, "repo.code", ACCESS_READ);
    const name = request.params["*"];
    const tag = await getTag(repositoryFilesPath(storage, found), name);
    if (!tag) throw new NotFound(`tag doesn't exist: ${name}`);
    return toApiTag(tag, `${found.owner.name}/${found.repository.name}`, request.rootUrl);
  });

  app.post(
    "/repos/:owner/:repo/tags",
    { ...code, schema: { params: RepoParams, body: CreateTagOption } },
    async (request, reply) => {
      const caller = signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      const tag = await createRepositoryTag(database, storage, found, caller.account, request.body);
      return reply
        .status(201)
        .send(toApiTag(tag, `${found.owner.name}/${found.repository.name}`, request.rootUrl));
    },
  );

  app.delete(
    "/repos/:owner/:repo/tags/*",
    { ...code, schema: { params: TailParams } },
    async (request, reply) => {
      const caller = signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      await deleteRepositoryTag(database, storage, found, caller.account, request.params["*"]);
      return reply.status(204).send();
    },
  );

  const render = async (rules: BranchProtection[]) => {
    const names = await allowListNames(database.db, rules);
    return rules.map((rule) => toApiBranchProtection(rule, names));
  };

  app.get(
    "/repos/:owner/:repo/branch_protections",
    { ...code, schema: { params: RepoParams } },
    async (request) => {
      signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      return render(await listRepositoryProtections(database, found));
    },
  );

  app.post(
    "/repos/:owner/:repo/branch_protections",
    { ...code, schema: { params: RepoParams, body: CreateBranchProtectionOption } },
    async (request, reply) => {
      signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      const rule = await createBranchProtection(database, found, request.body);
      return reply.status(201).send((await render([rule]))[0]);
    },
  );

  app.get(
    "/repos/:owner/:repo/branch_protections/:name",
    { ...code, schema: { params: RuleParams } },
    async (request) => {
      signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      return (await render([await getBranchProtection(database, found, request.params.name)]))[0];
    },
  );

  app.patch(
    "/repos/:owner/:repo/branch_protections/:name",
    { ...code, schema: { params: RuleParams, body: EditBranchProtectionOption } },
    async (request) => {
      signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      const rule = await editBranchProtection(database, found, request.params.name, request.body);
      return (await render([rule]))[0];
    },
  );

  app.delete(
    "/repos/:owner/:repo/branch_protections/:name",
    { ...code, schema: { params: RuleParams } },
    async (request, reply) => {
      signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      await removeBranchProtection(database, found, request.params.name);
      return reply.status(204).send();
    },
  );
}
