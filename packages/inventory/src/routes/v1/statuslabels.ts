import { type AnyKysely, NotFound } from "@anvil/core";
import { statuslabels } from "../../resources/statuslabels.ts";
import { requirePermission } from "../../services/permissions.ts";
import { assetsByLabel, assetsByType } from "../../services/statuslabel-charts.ts";
import { labelAssets, labelType } from "../../services/statuslabels.ts";
import { type ApiContext, authorized, callerOf, idParam, sendList } from "./context.ts";
import { IdParams, ListQuery } from "./resource.ts";

// Status labels' extra routes (spec §14): the dashboard's pie charts, a label's assets, and whether
// a label lets an asset be checked out (the asset form asks, so it needs no permission).

const tags = ["statuslabels"];

export function registerStatuslabelExtras({ app, database }: ApiContext): void {
  const db = () => database.db as AnyKysely;

  app.get("/statuslabels/assets/name", { schema: { tags } }, async (request) =>
    assetsByLabel(db(), authorized(request, "statuslabels.view")),
  );
  app.get("/statuslabels/assets/type", { schema: { tags } }, async (request) =>
    assetsByType(db(), authorized(request, "statuslabels.view")),
  );

  app.get(
    "/statuslabels/:id/assetlist",
    { schema: { tags, params: IdParams, querystring: ListQuery } },
    async (request, reply) => {
      const caller = authorized(request, "statuslabels.view");
      requirePermission(caller, "assets.view");
      const query = request.query as Record<string, unknown>;
      const page = await labelAssets(database, caller, idParam(request), query);
      return sendList(request, reply, page.params, page);
    },
  );

  app.get("/statuslabels/:id/deployable", { schema: { tags, params: IdParams } }, async (request, reply) => {
    callerOf(request);
    const type = await labelType(db(), idParam(request));
    if (!type) throw new NotFound(statuslabels.notFound);
    return reply
      .type("text/plain; charset=utf-8")
      .send(type === "deployable" || type === "pending" ? "1" : "0");
  });
}
