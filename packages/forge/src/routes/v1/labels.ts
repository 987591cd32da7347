import type { FastifyRequest } from "fastify";
import { toApiLabel } from "../../convert/label.ts";
import type { AccountRow } from "../../repositories/accounts.ts";
import {
  CreateLabelOption,
  EditLabelOption,
  LabelListQuery,
  OrgItemParams,
  RepoItemParams,
} from "../../schemas/labels.ts";
import { OrgParams } from "../../schemas/orgs.ts";
import { RepoParams } from "../../schemas/repos.ts";
import {
  createLabel,
  editLabel,
  getLabel,
  type LabelRow,
  listOwnLabels,
  removeLabel,
  requireIssueWriter,
} from "../../services/labels.ts";
import { getVisibleOrganization, requireOrgOwner } from "../../services/organizations.ts";
import type { RepositoryContext } from "../../services/repositories.ts";
import { type ApiContext, paged, sendPage, signedIn } from "./context.ts";
import { requestedRepository } from "./repos.ts";

function repositoryLabel(request: FastifyRequest, found: RepositoryContext) {
  const place = { rootUrl: request.rootUrl, owner: found.owner.name, repository: found.repository.name };
  return (label: LabelRow) => toApiLabel(label, place);
}

function organizationLabel(request: FastifyRequest, org: AccountRow) {
  const place = { rootUrl: request.rootUrl, owner: org.name };
  return (label: LabelRow) => toApiLabel(label, place);
}

/**
 * Labels of a repository (read by whoever sees it, managed with write on its issues or pull
 * requests) and of an organization (listed by whoever sees it, managed by its owners).
 */
export function registerLabels(context: ApiContext): void {
  const { app, database } = context;
  const issue = { config: { scope: "issue" as const, readOnlyWhenArchived: true } };
  const organization = { config: { scope: "organization" as const } };

  app.get(
    "/repos/:owner/:repo/labels",
    { ...issue, schema: { params: RepoParams, querystring: LabelListQuery } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      const window = paged(context, request);
      const owner = { repoId: found.repository.id };
      const page = await listOwnLabels(database, owner, { sort: request.query.sort, ...window });
      return sendPage(request, reply, window, page, repositoryLabel(request, found));
    },
  );

  app.post(
    "/repos/:owner/:repo/labels",
    { ...issue, schema: { params: RepoParams, body: CreateLabelOption } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      requireIssueWriter(found);
      const label = await createLabel(database, { repoId: found.repository.id }, request.body);
      return reply.status(201).send(repositoryLabel(request, found)(label));
    },
  );

  app.get(
    "/repos/:owner/:repo/labels/:id",
    { ...issue, schema: { params: RepoItemParams } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      const label = await getLabel(database, { repoId: found.repository.id }, request.params.id);
      return repositoryLabel(request, found)(label);
    },
  );

  app.patch(
    "/repos/:owner/:repo/labels/:id",
    { ...issue, schema: { params: RepoItemParams, body: EditLabelOption } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      requireIssueWriter(found);
      const owner = { repoId: found.repository.id };
      return repositoryLabel(
        request,
        found,
      )(await editLabel(database, owner, request.params.id, request.body));
    },
  );

  app.delete(
    "/repos/:owner/:repo/labels/:id",
    { ...issue, schema: { params: RepoItemParams } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      requireIssueWriter(found);
      await removeLabel(database, { repoId: found.repository.id }, request.params.id);
      return reply.status(204).send();
    },
  );

  app.get(
    "/orgs/:org/labels",
    { ...organization, schema: { params: OrgParams, querystring: LabelListQuery } },
    async (request, reply) => {
      const { org } = await getVisibleOrganization(database, request.params.org, request.caller?.account);
      const window = paged(context, request);
      const page = await listOwnLabels(database, { orgId: org.id }, { sort: request.query.sort, ...window });
      return sendPage(request, reply, window, page, organizationLabel(request, org));
    },
  );

  app.post(
    "/orgs/:org/labels",
    { ...organization, schema: { params: OrgParams, body: CreateLabelOption } },
    async (request, reply) => {
      const viewer = signedIn(request).account;
      const { org, role } = await getVisibleOrganization(database, request.params.org, viewer);
      requireOrgOwner(viewer, role);
      const label = await createLabel(database, { orgId: org.id }, request.body);
      return reply.status(201).send(organizationLabel(request, org)(label));
    },
  );

  // Gitea asks a signed-in caller for one organization label, though not for the list.
  app.get(
    "/orgs/:org/labels/:id",
    { ...organization, schema: { params: OrgItemParams } },
    async (request) => {
      const viewer = signedIn(request).account;
      const { org } = await getVisibleOrganization(database, request.params.org, viewer);
      return organizationLabel(request, org)(await getLabel(database, { orgId: org.id }, request.params.id));
    },
  );

  app.patch(
    "/orgs/:org/labels/:id",
    { ...organization, schema: { params: OrgItemParams, body: EditLabelOption } },
    async (request) => {
      const viewer = signedIn(request).account;
      const { org, role } = await getVisibleOrganization(database, request.params.org, viewer);
      requireOrgOwner(viewer, role);
      const label = await editLabel(database, { orgId: org.id }, request.params.id, request.body);
      return organizationLabel(request, org)(label);
    },
  );

  app.delete(
    "/orgs/:org/labels/:id",
    { ...organization, schema: { params: OrgItemParams } },
    async (request, reply) => {
      const viewer = signedIn(request).account;
      const { org, role } = await getVisibleOrganization(database, request.params.org, viewer);
      requireOrgOwner(viewer, role);
      await removeLabel(database, { orgId: org.id }, request.params.id);
      return reply.status(204).send();
    },
  );
}
