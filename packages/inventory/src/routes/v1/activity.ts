import { activityReport } from "../../services/activity-report.ts";
import { type ApiContext, authorized, sendList } from "./context.ts";
import { ListQuery } from "./resource.ts";

// GET /reports/activity (spec §22): the activity log, newest first.

export function registerActivityReport({ app, database }: ApiContext): void {
  app.get(
    "/reports/activity",
    { schema: { tags: ["reports"], querystring: ListQuery } },
    async (request, reply) => {
      const caller = authorized(request, "reports.view");
      const page = await activityReport(database, caller, request.query as Record<string, unknown>);
      return sendList(request, reply, page.params, page);
    },
  );
}
