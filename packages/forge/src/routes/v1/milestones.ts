import { toApiMilestone } from "../../convert/milestone.ts";
import {
  CreateMilestoneOption,
  EditMilestoneOption,
  MilestoneListQuery,
  RepoItemParams,
} from "../../schemas/labels.ts";
import { RepoParams } from "../../schemas/repos.ts";
import { requireIssueWriter } from "../../services/labels.ts";
import {
  createMilestone,
  editMilestone,
  getMilestone,
  listRepositoryMilestones,
  removeMilestone,
} from "../../services/milestones.ts";
import { type ApiContext, paged, sendPage } from "./context.ts";
import { requestedRepository } from "./repos.ts";

/** A repository's milestones: read by whoever sees it, managed with write on its issues or pull requests. */
export function registerMilestones(context: ApiContext): void {
  const { app, database } = context;
  const issue = { config: { scope: "issue" as const, readOnlyWhenArchived: true } };

  app.get(
    "/repos/:owner/:repo/milestones",
    { ...issue, schema: { params: RepoParams, querystring: MilestoneListQuery } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      const window = paged(context, request);
      const { state, name } = request.query;
      const page = await listRepositoryMilestones(database, found.repository.id, { state, name, ...window });
      return sendPage(request, reply, window, page, toApiMilestone);
    },
  );

  app.post(
    "/repos/:owner/:repo/milestones",
    { ...issue, schema: { params: RepoParams, body: CreateMilestoneOption } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      requireIssueWriter(found);
      const milestone = await createMilestone(database, found.repository.id, request.body);
      return reply.status(201).send(toApiMilestone(milestone));
    },
  );

  app.get(
    "/repos/:owner/:repo/milestones/:id",
    { ...issue, schema: { params: RepoItemParams } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      return toApiMilestone(await getMilestone(database, found.repository.id, request.params.id));
    },
  );

  app.patch(
    "/repos/:owner/:repo/milestones/:id",
    { ...issue, schema: { params: RepoItemParams, body: EditMilestoneOption } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      requireIssueWriter(found);
      const milestone = await getMilestone(database, found.repository.id, request.params.id);
      return toApiMilestone(await editMilestone(database, milestone, request.body));
    },
  );

  app.delete(
    "/repos/:owner/:repo/milestones/:id",
    { ...issue, schema: { params: RepoItemParams } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      requireIssueWriter(found);
      await removeMilestone(database, await getMilestone(database, found.repository.id, request.params.id));
      return reply.status(204).send();
    },
  );
}
