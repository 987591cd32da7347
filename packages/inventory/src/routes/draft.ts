import { type AnyKysely, DomainError, NotFound } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { presentAssets } from "../convert/asset.ts";
import { ASSET_NOT_FOUND, assets, holderType } from "../resources/assets.ts";
import { checkinAsset, checkoutAsset, deleteAsset, findAsset, listAssets } from "../services/assets.ts";
import { createResource, updateResource } from "../services/resource.ts";
import { type ApiContext, authorized, idParam, originOf, permitted, sendList } from "./v1/context.ts";
import { bodyOf, checkinRequest, checkoutRequest } from "./v1/hardware.ts";

// The seed's draft paths under /api/hardware (spec §25): thin adapters that translate the draft's
// request fields to v1's, call the same services, and answer in the draft's `{success, id, errors}`.
// Authentication and permission failures keep v1's answers.

/** The draft's answer for a write; a refused one carries v1's messages. */
async function answer(work: () => Promise<number>) {
  try {
    return { success: true, id: await work(), errors: null };
  } catch (error) {
    if (!(error instanceof DomainError) || error.kind === "forbidden" || error.kind === "unauthorized")
      throw error;
    const errors = Object.keys(error.details).length > 0 ? error.details : error.message;
    return { success: false, id: null, errors };
  }
}

/** A draft asset body as v1 takes it: model-derived fields dropped, assigned_id+type as assigned_<type>. */
function assetBody(input: Record<string, unknown>): Record<string, unknown> {
  const { image_url, model_number, eol, category_id, manufacturer_id, assigned_id, ...body } = input;
  const type = holderType(body.assigned_type);
  if (assigned_id !== undefined && type) {
    delete body.assigned_type;
    body[`assigned_${type}`] = assigned_id;
  }
  return body;
}

export function registerDraftHardware({ app, database }: ApiContext): void {
  const db = () => database.db as AnyKysely;
  const tags = ["draft"];

  app.get("/list", { schema: { tags } }, async (request, reply) => {
    const caller = authorized(request, "assets.view");
    const page = await listAssets(database, caller, request.query as Record<string, unknown>);
    return sendList(request, reply, page.params, page);
  });

  app.get("/show/:id", { schema: { tags } }, async (request) => {
    const caller = authorized(request, "assets.view");
    return (await presentAssets(db(), caller, [await findAsset(db(), idParam(request), caller)]))[0];
  });

  const create = async (request: FastifyRequest) => {
    const caller = authorized(request, "assets.create");
    return answer(
      async () =>
        (await createResource(database, assets, caller, originOf(request), assetBody(bodyOf(request)))).id,
    );
  };
  // The server ignores a trailing slash, so this is also /create/.
  app.post("/create", { schema: { tags }, config: permitted("assets.create") }, create);

  app.patch("/:id", { schema: { tags }, config: permitted("assets.edit") }, async (request) => {
    const caller = authorized(request, "assets.edit");
    const id = idParam(request);
    const known = await findAsset(db(), id, caller).then(
      (asset) => asset.deleted_at === null,
      () => false,
    );
    if (!known) return { success: false, id: null, errors: { id: [ASSET_NOT_FOUND] } };
    return answer(
      async () =>
        (await updateResource(database, assets, caller, originOf(request), id, assetBody(bodyOf(request))))
          .id,
    );
  });

  app.delete("/:id", { schema: { tags }, config: permitted("assets.delete") }, async (request) => {
    const caller = authorized(request, "assets.delete");
    try {
      await deleteAsset(database, caller, originOf(request), idParam(request));
      return { success: true };
    } catch (error) {
      if (error instanceof NotFound) return { success: false, error: ASSET_NOT_FOUND };
      throw error;
    }
  });

  app.get("/:id/checkout", { schema: { tags } }, async (request) => {
    const caller = authorized(request, "assets.view");
    const asset = await findAsset(db(), idParam(request), caller).catch(() => undefined);
    if (!asset) return { success: false, error: ASSET_NOT_FOUND };
    if (asset.assigned_to === null) return null;
    const [shown] = await presentAssets(db(), caller, [asset]);
    const holder = shown.assigned_to as { name?: string } | null;
    return {
      assigned_type: asset.assigned_type,
      assigned_id: Number(asset.assigned_to),
      assignee_name: holder?.name ?? null,
    };
  });

  app.post("/:id/checkout", { schema: { tags }, config: permitted("assets.checkout") }, async (request) => {
    const caller = authorized(request, "assets.checkout");
    const input = bodyOf(request);
    const type = holderType(input.assigned_type);
    const body: Record<string, unknown> = {
      checkout_to_type: type ?? input.assigned_type,
      checkout_at: input.checkout_date,
      expected_checkin: input.expected_checkin,
      note: input.note,
      name: input.name,
      status_id: input.status_id,
    };
    if (type) body[`assigned_${type}`] = input.assigned_id;
    return answer(async () => {
      const id = idParam(request);
      const asset = await findAsset(db(), id, caller, assets.notFound);
      if (asset.deleted_at !== null) throw new NotFound(assets.notFound);
      const { target, options } = await checkoutRequest(db(), body);
      return (await checkoutAsset(database, caller, originOf(request), id, target, options)).id;
    });
  });

  app.post("/:id/checkin", { schema: { tags }, config: permitted("assets.checkin") }, async (request) => {
    const caller = authorized(request, "assets.checkin");
    const input = bodyOf(request);
    return answer(async () => {
      const id = idParam(request);
      const asset = await findAsset(db(), id, caller, assets.notFound);
      if (asset.deleted_at !== null) throw new NotFound(assets.notFound);
      const options = await checkinRequest(db(), { ...input, checkin_at: input.checkin_date });
      return (await checkinAsset(database, caller, originOf(request), id, options)).id;
    });
  });
}
