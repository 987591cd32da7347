import { Forbidden } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { UNAUTHORIZED_ACTION } from "../../services/permissions.ts";
import {
  categorySource,
  locationSelectlist,
  maySelect,
  pageOf,
  SELECTLISTS,
  selectlist,
} from "../../services/selectlists.ts";
import { type ApiContext, callerOf } from "./context.ts";

// GET /{resource}/selectlist for every resource that has one (spec §2.4), behind the
// `view.selectlists` gate (spec §6).

const SelectQuery = Type.Object({
  search: Type.Optional(Type.String()),
  page: Type.Optional(Type.String({ description: "1-based page of 50" })),
});

export function registerSelectlists({ app, database }: ApiContext): void {
  const asked = (request: FastifyRequest) => {
    const caller = callerOf(request);
    if (!maySelect(caller)) throw new Forbidden(UNAUTHORIZED_ACTION);
    const query = request.query as Record<string, unknown>;
    const search = typeof query.search === "string" ? query.search.trim() : "";
    return { caller, search, page: pageOf(query.page), query };
  };

  for (const [path, source] of Object.entries(SELECTLISTS))
    app.get(
      `/${path}/selectlist`,
      { schema: { tags: [path], querystring: SelectQuery } },
      async (request) => {
        const { caller, ...query } = asked(request);
        return selectlist(database, caller, source, query);
      },
    );

  app.get(
    "/categories/:type/selectlist",
    {
      schema: {
        tags: ["categories"],
        querystring: SelectQuery,
        params: Type.Object({ type: Type.String() }),
      },
    },
    async (request) => {
      const { caller, ...query } = asked(request);
      return selectlist(database, caller, categorySource((request.params as { type: string }).type), query);
    },
  );

  app.get(
    "/locations/selectlist",
    { schema: { tags: ["locations"], querystring: SelectQuery } },
    async (request) => {
      const { caller, ...query } = asked(request);
      return locationSelectlist(database, caller, query);
    },
  );
}
