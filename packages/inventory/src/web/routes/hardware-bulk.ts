import type { AnyKysely } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { BULK_LIMIT, BULK_PERMISSIONS, bulkWrite } from "../../routes/v1/hardware-bulk.ts";
import { assetsWhere } from "../../services/assets.ts";
import {
  formOf,
  guard,
  invalidFields,
  pageCaller,
  redirectWith,
  render,
  type WebContext,
} from "../context.ts";
import { type AssetAction, actionChoices } from "./hardware-choices.ts";

// Bulk actions on the assets ticked in the list (Snipe-IT's bulk checkout, checkin, audit, edit,
// delete): a form for the action's fields, then bulkWrite, as POST /api/v1/hardware/bulk/{action}
// runs it, and each asset's answer. `partial`: each asset succeeds or fails on its own, as a
// person ticking several expects (the API's default is all or nothing).

const TITLES: Readonly<Record<AssetAction, string>> = {
  checkout: "Bulk Checkout",
  checkin: "Bulk Checkin",
  audit: "Bulk Audit",
  update: "Bulk Edit",
  delete: "Bulk Delete",
};

/** The fields the bulk edit changes: only those given (an empty one is left as it is). */
const EDITED = ["status_id", "rtd_location_id"];

/** The ticked ids, as the form sends them: one value or several. */
function idsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((id): id is string => typeof id === "string" && /^\d+$/.test(id));
}

export function registerHardwareBulk(context: WebContext): void {
  const { app, database } = context;

  const showForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
    action: AssetAction,
    ids: string[],
    extra: { values?: Record<string, unknown>; errors?: Record<string, string[]> } = {},
    status = 200,
  ) => {
    const caller = pageCaller(request);
    if (ids.length === 0)
      return redirectWith(context, reply, "/hardware", "error", "Select at least one asset first.");
    if (ids.length > BULK_LIMIT)
      return redirectWith(context, reply, "/hardware", "error", `Select at most ${BULK_LIMIT} assets.`);
    const chosen = await assetsWhere(database.db as AnyKysely, "id", ids.map(Number), false, caller);
    return render(
      context,
      request,
      reply,
      "hardware/bulk",
      {
        title: TITLES[action],
        action,
        assets: chosen.map((row) => ({
          id: Number(row.id),
          tag: String(row.asset_tag),
          name: row.name ?? "",
        })),
        choices: await actionChoices(database, caller, action),
        values: { checkout_to_type: "user", ...extra.values },
        errors: extra.errors ?? {},
      },
      status,
    );
  };

  for (const action of Object.keys(TITLES) as AssetAction[]) {
    const allowed = { onRequest: guard(context, { permission: BULK_PERMISSIONS[action] }) };

    app.get(`/hardware/bulk/${action}`, allowed, (request, reply) =>
      showForm(request, reply, action, idsOf((request.query as Record<string, unknown>).ids)),
    );

    app.post(`/hardware/bulk/${action}`, allowed, async (request, reply) => {
      const caller = pageCaller(request);
      const { ids: given, ...fields } = formOf(request);
      const ids = idsOf(given);
      if (action === "update")
        for (const name of Object.keys(fields))
          if (!EDITED.includes(name) || fields[name] === "") delete fields[name];
      let answer: Awaited<ReturnType<typeof bulkWrite>>;
      try {
        answer = await bulkWrite(database, request, caller, action, { ...fields, ids, partial: true });
      } catch (error) {
        return showForm(request, reply, action, ids, { values: fields, errors: invalidFields(error) }, 422);
      }
      const results = answer.body.payload.results.map((item) => ({
        id: item.id,
        tag: item.asset_tag,
        ok: item.status === "success",
        message:
          typeof item.messages === "string"
            ? item.messages
            : Object.values((item.messages ?? {}) as Record<string, string[]>)
                .flat()
                .join(" "),
      }));
      return render(context, request, reply, "hardware/bulk-result", {
        title: TITLES[action],
        summary: answer.body.messages,
        ok: answer.body.status === "success",
        results,
      });
    });
  }
}
