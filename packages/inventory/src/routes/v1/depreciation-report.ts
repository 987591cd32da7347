import { presentDepreciationReport } from "../../convert/depreciation.ts";
import { listAssets } from "../../services/assets.ts";
import { type ApiContext, authorized, sendList } from "./context.ts";
import { ListQuery } from "./resource.ts";

/** GET /reports/depreciation: the hardware list (its paging, sorts and filters) as report rows. */
export function registerDepreciationReport({ app, database }: ApiContext): void {
  app.get(
    "/reports/depreciation",
    { schema: { tags: ["reports"], querystring: ListQuery } },
    async (request, reply) => {
      const caller = authorized(request, "reports.view");
      const page = await listAssets(database, caller, request.query as Record<string, unknown>, {
        present: presentDepreciationReport,
      });
      return sendList(request, reply, page.params, page);
    },
  );
}
