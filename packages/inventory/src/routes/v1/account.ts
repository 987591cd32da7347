import {
  cancelAssetRequest,
  ownRequests,
  REQUEST_MESSAGES,
  requestAsset,
  requestableList,
} from "../../services/requests.ts";
import { type ApiContext, authorized, idParam, originOf, permitted, sendList, success } from "./context.ts";
import { IdParams, ListQuery } from "./resource.ts";

// The account's self-service requests (spec §7.1): the requestable assets, asking for one,
// taking the request back, and the caller's open requests. All need `assets.view.requestable`.

const tags = ["account"];
const PERMISSION = "assets.view.requestable";

export function registerAccountRequests({ app, database }: ApiContext): void {
  app.get(
    "/account/requestable/hardware",
    { schema: { tags, querystring: ListQuery } },
    async (request, reply) => {
      const caller = authorized(request, PERMISSION);
      const page = await requestableList(database, caller, request.query as Record<string, unknown>);
      return sendList(request, reply, page.params, page);
    },
  );

  const writes = { schema: { tags, params: IdParams }, config: permitted(PERMISSION) };
  app.post("/account/request/:id", writes, async (request) => {
    const caller = authorized(request, PERMISSION);
    const outcome = await requestAsset(database, caller, originOf(request), idParam(request));
    // QUIRK kept: the refusal's sentence comes in the payload slot.
    if (outcome === "not-requestable")
      return { status: "error", messages: null, payload: REQUEST_MESSAGES.notRequestable };
    return success(REQUEST_MESSAGES.success);
  });

  app.post("/account/request/:id/cancel", writes, async (request) => {
    const caller = authorized(request, PERMISSION);
    await cancelAssetRequest(database, caller, originOf(request), idParam(request));
    return success(REQUEST_MESSAGES.canceled);
  });

  app.get("/account/requests", { schema: { tags } }, async (request) => {
    const caller = authorized(request, PERMISSION);
    return ownRequests(database, caller);
  });
}
