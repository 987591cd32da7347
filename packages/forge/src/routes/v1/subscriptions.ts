import { link } from "../../convert/link.ts";
import { apiTime } from "../../convert/time.ts";
import { toApiUser } from "../../convert/user.ts";
import { SubscriptionParams } from "../../schemas/comments.ts";
import { IssueParams } from "../../schemas/issues.ts";
import { issueSubscribers, setSubscription, subscriptionOf } from "../../services/subscriptions.ts";
import { type ApiContext, paged, sendPage, signedIn } from "./context.ts";
import { requestedRepository } from "./repos.ts";

/** Who follows an issue; following and leaving it. */
export function registerSubscriptions(context: ApiContext): void {
  const { app, database } = context;
  const issue = { config: { scope: "issue" as const } };

  app.get(
    "/repos/:owner/:repo/issues/:index/subscriptions",
    { ...issue, schema: { params: IssueParams } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      const window = paged(context, request);
      const page = await issueSubscribers(database, found, request.params.index, window);
      return sendPage(request, reply, window, page, (account) =>
        toApiUser(account, request.caller?.account, request.rootUrl),
      );
    },
  );

  app.get(
    "/repos/:owner/:repo/issues/:index/subscriptions/check",
    { ...issue, schema: { params: IssueParams } },
    async (request) => {
      const doer = signedIn(request).account;
      const found = await requestedRepository(database, request.params, request);
      const { issue: watched, subscribed } = await subscriptionOf(
        database,
        found,
        doer,
        request.params.index,
      );
      const repository = `api/v1/repos/${encodeURIComponent(found.owner.name)}/${encodeURIComponent(found.repository.name)}`;
      // Gitea's WatchInfo of an issue: `ignored` is the opposite of `subscribed`, no reason.
      return {
        subscribed,
        ignored: !subscribed,
        reason: null,
        created_at: apiTime(watched.created_at),
        url: link(request.rootUrl, `${repository}/issues/${watched.number}/subscriptions`),
        repository_url: link(request.rootUrl, repository),
      };
    },
  );

  for (const [method, watching] of [
    ["PUT", true],
    ["DELETE", false],
  ] as const)
    app.route({
      method,
      url: "/repos/:owner/:repo/issues/:index/subscriptions/:user",
      ...issue,
      schema: { params: SubscriptionParams },
      handler: async (request, reply) => {
        const doer = signedIn(request).account;
        const found = await requestedRepository(database, request.params, request);
        const { index, user } = request.params;
        const { changed } = await setSubscription(database, found, doer, index, user, watching);
        return reply.status(changed ? 201 : 200).send();
      },
    });
}
