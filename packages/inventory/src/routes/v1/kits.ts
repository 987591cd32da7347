import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { legacyMaintenances } from "../../resources/maintenances.ts";
import {
  attachKitItem,
  checkoutKit,
  detachKitItem,
  KIT_BODIES,
  KIT_KINDS,
  type KitKind,
  listKitItems,
  updateKitItem,
} from "../../services/kits.ts";
import { bodySchema } from "../../services/validation.ts";
import { type ApiContext, authorized, idParam, originOf, permitted, success } from "./context.ts";
import { body, IdParams, rawRow, registerResource } from "./resource.ts";

// What a kit holds (/kits/{id}/models|licenses|accessories|consumables) and its check-out to a
// user; the kits themselves are a table-driven resource. Also the maintenances' older path.

const ItemParams = Type.Object({ id: Type.String(), item: Type.String() });

export function registerKits(context: ApiContext): void {
  const { app, database } = context;
  const tags = ["kits"];
  const actor = (request: FastifyRequest, permission: string) => ({
    database,
    caller: authorized(request, permission),
    origin: originOf(request),
  });
  const edits = permitted("kits.edit");

  for (const kind of Object.keys(KIT_KINDS) as KitKind[]) {
    const { messages } = KIT_KINDS[kind];
    app.get(`/kits/:id/${kind}`, { schema: { tags, params: IdParams } }, async (request) =>
      listKitItems(database, authorized(request, "kits.view"), idParam(request), kind),
    );
    const attach = { tags, params: IdParams, body: bodySchema(KIT_BODIES.item(kind)) };
    app.post(`/kits/:id/${kind}`, { schema: attach, config: edits }, async (request) => {
      const kit = await attachKitItem(actor(request, "kits.edit"), idParam(request), kind, body(request));
      return success(messages.added, rawRow(kit));
    });
    const update = async (request: FastifyRequest) => {
      const kit = await updateKitItem(
        actor(request, "kits.edit"),
        idParam(request),
        kind,
        idParam(request, "item"),
        body(request),
      );
      return success(messages.updated, rawRow(kit));
    };
    const quantity = { tags, params: ItemParams, body: bodySchema(KIT_BODIES.quantity) };
    app.put(`/kits/:id/${kind}/:item`, { schema: quantity, config: edits }, update);
    app.patch(`/kits/:id/${kind}/:item`, { schema: quantity, config: edits }, update);
    app.delete(
      `/kits/:id/${kind}/:item`,
      { schema: { tags, params: ItemParams }, config: edits },
      async (request) => {
        const kit = await detachKitItem(
          actor(request, "kits.edit"),
          idParam(request),
          kind,
          idParam(request, "item"),
        );
        return success(messages.removed, rawRow(kit));
      },
    );
  }

  // Our addition: Snipe-IT checks a kit out from its web pages only. Seeing the kit takes
  // kits.view; each kind of item it holds takes that kind's checkout permission.
  app.post(
    "/kits/:id/checkout",
    {
      schema: { tags, params: IdParams, body: bodySchema(KIT_BODIES.checkout) },
      config: permitted("kits.view"),
    },
    async (request) => {
      const result = await checkoutKit(actor(request, "kits.view"), idParam(request), body(request));
      return success("Kit checked out successfully.", result);
    },
  );

  registerResource(context, legacyMaintenances);
}
