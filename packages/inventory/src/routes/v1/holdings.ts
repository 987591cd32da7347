import type { FastifyReply, FastifyRequest } from "fastify";
import {
  assetAccessories,
  assetAssignedAssets,
  assetLicenses,
  locationAccessories,
  locationAssets,
  locationAssignedAssets,
  locationUsers,
  userAccessories,
  userAssets,
  userLicenses,
} from "../../services/holdings.ts";
import type { ListParams } from "../../services/listing.ts";
import type { Caller } from "../../services/permissions.ts";
import { type ApiContext, authorized, idParam, sendList } from "./context.ts";
import { IdParams, ListQuery } from "./resource.ts";

// What an asset, a location or a user holds (spec §7.1, §12, §19): the licenses of their seats,
// the accessories and assets checked out to them. Each route checks its permissions, then the
// service finds the holder (the caller's to see) and lists.

type Lister = (
  database: ApiContext["database"],
  caller: Caller,
  id: number,
  query: Record<string, unknown>,
) => Promise<{ params: ListParams; total: number; rows: unknown[]; next?: number }>;

export function registerHoldings({ app, database }: ApiContext): void {
  const schema = (tag: string) => ({ schema: { tags: [tag], params: IdParams, querystring: ListQuery } });
  /** The caller, once they hold every one of the permissions. */
  const allowed = (request: FastifyRequest, ...permissions: string[]): Caller =>
    permissions.map((permission) => authorized(request, permission))[0];
  /** A holder's list, for a caller with every one of the permissions. */
  const list =
    (lister: Lister, ...permissions: string[]) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const caller = allowed(request, ...permissions);
      const page = await lister(database, caller, idParam(request), request.query as Record<string, unknown>);
      return sendList(request, reply, page.params, page);
    };

  app.get("/hardware/:id/licenses", schema("hardware"), list(assetLicenses, "assets.view", "licenses.view"));
  app.get("/hardware/:id/assigned/accessories", schema("hardware"), list(assetAccessories, "assets.view"));
  app.get("/hardware/:id/assigned/assets", schema("hardware"), async (request) =>
    assetAssignedAssets(database, allowed(request, "assets.view"), idParam(request)),
  );

  app.get("/locations/:id/users", schema("locations"), list(locationUsers, "users.view"));
  app.get("/locations/:id/assets", schema("locations"), list(locationAssets, "assets.view"));
  app.get(
    "/locations/:id/assigned/assets",
    schema("locations"),
    list(locationAssignedAssets, "assets.view", "locations.view"),
  );
  app.get(
    "/locations/:id/assigned/accessories",
    schema("locations"),
    list(locationAccessories, "accessories.view", "locations.view"),
  );

  app.get("/users/:id/assets", schema("users"), list(userAssets, "users.view", "assets.view"));
  app.get("/users/:id/accessories", schema("users"), list(userAccessories, "users.view", "accessories.view"));
  app.get("/users/:id/licenses", schema("users"), list(userLicenses, "users.view", "licenses.view"));
}
