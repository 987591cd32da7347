import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import {
  accessoryCheckouts,
  ComponentCheckoutInvalid,
  checkinAccessory,
  checkinComponent,
  checkoutStock,
  componentAssets,
  consumableUsers,
} from "../../services/checkouts.ts";
import { checkoutLicense, listSeats, showSeat, updateSeat } from "../../services/seats.ts";
import { type ApiContext, authorized, idParam, originOf, permitted, sendList, success } from "./context.ts";
import { IdParams, ListQuery, rawRow } from "./resource.ts";

// Check-out and check-in of accessories, consumables, components and license seats (spec §15–§18,
// the matrix of §24). Each route checks its permission, then calls one service.

const SeatParams = Type.Object({ id: Type.String(), seat: Type.String() });

function body(request: FastifyRequest): Record<string, unknown> {
  const given = request.body;
  return typeof given === "object" && given !== null && !Array.isArray(given)
    ? (given as Record<string, unknown>)
    : {};
}

function strict(request: FastifyRequest): boolean {
  return request.headers["x-api-strict-status"] === "1";
}

export function registerItemRoutes({ app, database }: ApiContext): void {
  const actor = (request: FastifyRequest, permission: string) => ({
    database,
    caller: authorized(request, permission),
    origin: originOf(request),
  });
  const query = (request: FastifyRequest) => request.query as Record<string, unknown>;

  app.post(
    "/accessories/:id/checkout",
    { schema: { tags: ["accessories"], params: IdParams }, config: permitted("accessories.checkout") },
    async (request) => {
      await checkoutStock(
        actor(request, "accessories.checkout"),
        "accessory",
        idParam(request),
        body(request),
      );
      return success("Accessory checked out successfully.");
    },
  );
  app.post(
    "/accessories/:id/checkin",
    { schema: { tags: ["accessories"], params: IdParams }, config: permitted("accessories.checkin") },
    async (request) => {
      await checkinAccessory(actor(request, "accessories.checkin"), idParam(request), body(request));
      return success("Accessory checked in successfully.");
    },
  );
  app.get(
    "/accessories/:id/checkedout",
    { schema: { tags: ["accessories"], params: IdParams, querystring: ListQuery } },
    async (request) =>
      accessoryCheckouts(database, authorized(request, "accessories.view"), idParam(request), query(request)),
  );

  app.post(
    "/consumables/:id/checkout",
    { schema: { tags: ["consumables"], params: IdParams }, config: permitted("consumables.checkout") },
    async (request) => {
      await checkoutStock(
        actor(request, "consumables.checkout"),
        "consumable",
        idParam(request),
        body(request),
      );
      return success("Consumable checked out successfully.");
    },
  );
  app.get(
    "/consumables/:id/users",
    { schema: { tags: ["consumables"], params: IdParams } },
    async (request) => {
      return consumableUsers(database, authorized(request, "consumables.view"), idParam(request));
    },
  );

  app.post(
    "/components/:id/checkout",
    { schema: { tags: ["components"], params: IdParams }, config: permitted("components.checkout") },
    async (request, reply: FastifyReply) => {
      try {
        await checkoutStock(
          actor(request, "components.checkout"),
          "component",
          idParam(request),
          body(request),
        );
      } catch (error) {
        // QUIRK (spec §2.3): this call's validation errors travel in the payload slot.
        if (!(error instanceof ComponentCheckoutInvalid)) throw error;
        return reply
          .status(strict(request) ? 422 : 200)
          .send({ status: "error", messages: null, payload: error.details });
      }
      return success("Component checked out successfully.");
    },
  );
  app.post(
    "/components/:id/checkin",
    { schema: { tags: ["components"], params: IdParams }, config: permitted("components.checkin") },
    async (request) => {
      await checkinComponent(actor(request, "components.checkin"), idParam(request), body(request));
      return success("Component checked in successfully.");
    },
  );
  app.get(
    "/components/:id/assets",
    { schema: { tags: ["components"], params: IdParams, querystring: ListQuery } },
    async (request) =>
      componentAssets(database, authorized(request, "components.view"), idParam(request), query(request)),
  );

  app.get(
    "/licenses/:id/seats",
    { schema: { tags: ["licenses"], params: IdParams, querystring: ListQuery } },
    async (request, reply) => {
      const page = await listSeats(
        database,
        authorized(request, "licenses.view"),
        idParam(request),
        query(request),
      );
      return sendList(request, reply, page.params, page);
    },
  );
  app.get(
    "/licenses/:id/seats/:seat",
    { schema: { tags: ["licenses"], params: SeatParams } },
    async (request) =>
      showSeat(database, authorized(request, "licenses.view"), idParam(request), idParam(request, "seat")),
  );
  const patchSeat = async (request: FastifyRequest) => {
    const seat = await updateSeat(
      actor(request, "licenses.checkout"),
      idParam(request),
      idParam(request, "seat"),
      body(request),
      strict(request),
    );
    return success("License updated successfully.", rawRow(seat));
  };
  const seatWrite = {
    schema: { tags: ["licenses"], params: SeatParams },
    config: permitted("licenses.checkout"),
  };
  app.patch("/licenses/:id/seats/:seat", seatWrite, patchSeat);
  app.put("/licenses/:id/seats/:seat", seatWrite, patchSeat);
  app.post(
    "/licenses/:id/checkout",
    { schema: { tags: ["licenses"], params: IdParams }, config: permitted("licenses.checkout") },
    async (request) => {
      const seat = await checkoutLicense(
        actor(request, "licenses.checkout"),
        idParam(request),
        body(request),
      );
      return success("License checked out successfully.", rawRow(seat));
    },
  );
}
