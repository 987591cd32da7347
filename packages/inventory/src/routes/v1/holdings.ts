import { type AnyKysely, NotFound } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { locations } from "../../resources/locations.ts";
import { users } from "../../resources/users.ts";
import {
  ASSET_NOT_FOUND_BY_ROUTE,
  type AssetListScope,
  findAsset,
  listAssets,
} from "../../services/assets.ts";
import { assignedAccessories, type Holder, heldLicenses, userAccessories } from "../../services/holdings.ts";
import type { Caller } from "../../services/permissions.ts";
import { findResource, listResource } from "../../services/resource.ts";
import { type ApiContext, authorized, idParam, sendList } from "./context.ts";
import { IdParams, ListQuery } from "./resource.ts";

// What an asset, a location or a user holds (spec §7.1, §12, §19): the licenses of their seats,
// the accessories and assets checked out to them. Each route checks its permissions, then that the
// holder exists (and is the caller's to see), then lists.

export function registerHoldings({ app, database }: ApiContext): void {
  const db = () => database.db as AnyKysely;
  const query = (request: FastifyRequest) => request.query as Record<string, unknown>;
  const schema = (tag: string) => ({ schema: { tags: [tag], params: IdParams, querystring: ListQuery } });
  /** The caller, once they hold every one of the permissions. */
  const allowed = (request: FastifyRequest, ...permissions: string[]): Caller =>
    permissions.map((permission) => authorized(request, permission))[0];
  /** An undeleted asset, as Snipe-IT's route binding finds it. */
  const boundAsset = async (request: FastifyRequest, caller: Caller): Promise<Holder> => {
    const asset = await findAsset(db(), idParam(request), caller, ASSET_NOT_FOUND_BY_ROUTE);
    if (asset.deleted_at !== null) throw new NotFound(ASSET_NOT_FOUND_BY_ROUTE);
    return { type: "asset", id: asset.id };
  };
  const location = async (request: FastifyRequest, caller: Caller): Promise<Holder> => ({
    type: "location",
    id: (await findResource(database, locations, idParam(request), undefined, caller)).id,
  });
  const user = async (
    request: FastifyRequest,
    caller: Caller,
    trashed: "with" | "without" = "without",
  ): Promise<Holder> => ({
    type: "user",
    id: (await findResource(database, users, idParam(request), undefined, caller, trashed)).id,
  });
  /** Assets checked out to the holder, whatever their label (what it holds is all it holds). */
  const assetsOf = (holder: Holder): AssetListScope => ({
    narrow: (select) =>
      select.where("assets.assigned_type", "=", holder.type).where("assets.assigned_to", "=", holder.id),
    everyStatus: true,
  });

  app.get("/hardware/:id/licenses", schema("hardware"), async (request, reply) => {
    const caller = allowed(request, "assets.view", "licenses.view");
    // This route reads deleted assets too, and says so in its own words (spec §7.1).
    const asset = await findAsset(db(), idParam(request), caller);
    const page = await heldLicenses(database, caller, { type: "asset", id: asset.id }, query(request));
    return sendList(request, reply, page.params, page);
  });
  app.get("/hardware/:id/assigned/accessories", schema("hardware"), async (request, reply) => {
    const caller = allowed(request, "assets.view");
    const page = await assignedAccessories(
      database,
      caller,
      await boundAsset(request, caller),
      query(request),
    );
    return sendList(request, reply, page.params, page);
  });
  // QUIRK kept (spec §7.1): upstream's handler is a stub that answers an empty array.
  app.get("/hardware/:id/assigned/assets", schema("hardware"), async (request) => {
    await boundAsset(request, allowed(request, "assets.view"));
    return [];
  });

  app.get("/locations/:id/users", schema("locations"), async (request, reply) => {
    const caller = allowed(request, "users.view");
    const { id } = await location(request, caller);
    const page = await listResource(database, users, caller, { ...query(request), location_id: String(id) });
    return sendList(request, reply, page.params, page);
  });
  // The asset list of the assets whose current location it is, with every filter of GET /hardware.
  app.get("/locations/:id/assets", schema("locations"), async (request, reply) => {
    const caller = allowed(request, "assets.view");
    const { id } = await location(request, caller);
    const page = await listAssets(database, caller, query(request), {
      narrow: (select) => select.where("assets.location_id", "=", id),
    });
    return sendList(request, reply, page.params, page);
  });
  app.get("/locations/:id/assigned/assets", schema("locations"), async (request, reply) => {
    const caller = allowed(request, "assets.view", "locations.view");
    const page = await listAssets(
      database,
      caller,
      query(request),
      assetsOf(await location(request, caller)),
    );
    return sendList(request, reply, page.params, page);
  });
  app.get("/locations/:id/assigned/accessories", schema("locations"), async (request, reply) => {
    const caller = allowed(request, "accessories.view", "locations.view");
    const page = await assignedAccessories(database, caller, await location(request, caller), query(request));
    return sendList(request, reply, page.params, page);
  });

  // Besides every asset filter, Snipe-IT names category_id and model_id here (spec §19).
  app.get("/users/:id/assets", schema("users"), async (request, reply) => {
    const caller = allowed(request, "users.view", "assets.view");
    // Snipe-IT reads a deleted user's assets on purpose (withTrashed), unlike their accessories.
    const holder = await user(request, caller, "with");
    const page = await listAssets(database, caller, query(request), assetsOf(holder));
    return sendList(request, reply, page.params, page);
  });
  app.get("/users/:id/accessories", schema("users"), async (request, reply) => {
    const caller = allowed(request, "users.view", "accessories.view");
    const { id } = await user(request, caller);
    const page = await userAccessories(database, caller, id, query(request));
    return sendList(request, reply, page.params, page);
  });
  app.get("/users/:id/licenses", schema("users"), async (request, reply) => {
    const caller = allowed(request, "users.view", "licenses.view");
    // As for assets: Snipe-IT reads a deleted user's licenses on purpose (withTrashed).
    const page = await heldLicenses(database, caller, await user(request, caller, "with"), query(request));
    return sendList(request, reply, page.params, page);
  });
}
