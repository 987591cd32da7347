import { type AnyKysely, NotFound } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { presentAssets } from "../../convert/asset.ts";
import { Refused } from "../../errors.ts";
import { idParam, originOf } from "../../routes/v1/context.ts";
import { auditRequest, checkinRequest, checkoutRequest } from "../../routes/v1/hardware.ts";
import { acceptMultipart, stagedFiles } from "../../routes/v1/multipart.ts";
import { assetHistory } from "../../services/activity-report.ts";
import {
  ASSET_NOT_FOUND_BY_ROUTE,
  auditAsset,
  checkinAsset,
  checkoutAsset,
  deleteAsset,
  findAsset,
} from "../../services/assets.ts";
import { ALREADY_CHECKED_IN, NOT_AVAILABLE } from "../../services/checkout.ts";
import { ATTACHABLES, attachedTo, attachFiles, listFiles } from "../../services/files.ts";
import { assetLicenses } from "../../services/holdings.ts";
import { matrixCode } from "../../services/label-codes.ts";
import { labelAssets, labelsPdf } from "../../services/labels.ts";
import { type Caller, can, requirePermission } from "../../services/permissions.ts";
import { getSettings } from "../../services/settings.ts";
import {
  formOf,
  guard,
  invalidFields,
  pageCaller,
  redirectWith,
  render,
  type WebContext,
} from "../context.ts";
import { actionChoices } from "./hardware-choices.ts";
import { plain, type ShownAsset } from "./hardware-view.ts";

// One asset's page (Snipe-IT's /hardware/{id}) and its actions: Checkout, Checkin, Audit, Delete,
// files, the label. Each action calls the service its API route calls, after the same permission,
// and reads the form through the same request checks (checkoutRequest…), so a page and a client
// get the same answers: one of two simultaneous checkouts is refused by the same conditional write.

const HARDWARE_FILES = ATTACHABLES.find((kind) => kind.path === "hardware");
/** The most history entries the page shows (the newest). */
const HISTORY_SHOWN = 50;

/** The asset as the API shows it, with its components, its text as typed. */
async function shownAsset(context: WebContext, caller: Caller, id: number): Promise<ShownAsset> {
  const db = context.database.db as AnyKysely;
  const row = await findAsset(db, id, caller);
  const [shown] = await presentAssets(db, caller, [row], { components: true });
  return plain(shown) as ShownAsset;
}

/** The QR code of the asset's page, as the labels carry it: square modules, for an inline SVG. */
function qrOf(url: string) {
  const code = matrixCode("QRCODE", url);
  return code && { size: code.width, dark: code.dark };
}

const ACTION_TITLES = { checkout: "Checkout", checkin: "Checkin", audit: "Audit" } as const;
type Action = keyof typeof ACTION_TITLES;

export function registerHardwareItem(context: WebContext): void {
  const { app, database, storage } = context;
  const db = () => database.db as AnyKysely;
  const allowed = (permission: string) => ({ onRequest: guard(context, { permission }) });

  app.get("/hardware/:id", allowed("assets.view"), async (request, reply) => {
    const caller = pageCaller(request);
    const asset = await shownAsset(context, caller, idParam(request));
    const [history, files, licenses, labels] = await Promise.all([
      assetHistory(database, asset.id, { limit: HISTORY_SHOWN, sort: "created_at", order: "desc" }),
      HARDWARE_FILES ? listFiles(db(), HARDWARE_FILES, asset.id) : [],
      can(caller, "licenses.view") ? assetLicenses(database, caller, asset.id, {}) : undefined,
      labelAssets(db(), caller, { column: "id", values: [asset.id] }),
    ]);
    return render(context, request, reply, "hardware/show", {
      title: `Asset: ${String(asset.asset_tag)}`,
      asset,
      history: { total: history.total, rows: plain(history.rows) },
      files: files.map((file) => ({
        id: Number(file.id),
        filename: String(file.filename),
        note: file.note === null ? "" : String(file.note),
        created: String(file.created_at ?? ""),
      })),
      licenses: licenses && (plain(licenses.rows) as Record<string, unknown>[]),
      qr: labels[0] && qrOf(labels[0].url),
      may: {
        edit: can(caller, "assets.edit"),
        create: can(caller, "assets.create"),
        delete: can(caller, "assets.delete"),
        audit: can(caller, "assets.audit"),
      },
      errors: {},
    });
  });

  // The label of the asset, as POST /api/v1/hardware/labels makes it, sent as the PDF itself.
  app.post("/hardware/:id/label", allowed("assets.view"), async (request, reply) => {
    const caller = pageCaller(request);
    const asset = await findAsset(db(), idParam(request), caller);
    const labels = await labelAssets(db(), caller, { column: "id", values: [asset.id] });
    if (labels.length === 0)
      return redirectWith(context, reply, `/hardware/${asset.id}`, "error", "A deleted asset has no label.");
    const pdf = await labelsPdf(await getSettings(database), labels);
    return reply
      .header("content-type", "application/pdf")
      .header("content-disposition", `attachment; filename="label-${asset.id}.pdf"`)
      .send(Buffer.from(pdf));
  });

  // Files come as multipart, read into the body (and its CSRF field) before the token is checked.
  app.register(async (scope) => {
    acceptMultipart(scope as unknown as typeof app, storage);
    // `authorize` tells core's upload reader the right to upload was checked (by the guard, before).
    const uploads = {
      ...allowed("assets.edit"),
      config: {
        authorize: (request: FastifyRequest) => requirePermission(pageCaller(request), "assets.edit"),
      },
    };
    scope.post("/hardware/:id/files", uploads, async (request, reply) => {
      const caller = pageCaller(request);
      const record = HARDWARE_FILES && (await attachedTo(db(), caller, HARDWARE_FILES, idParam(request)));
      if (!HARDWARE_FILES || !record) return reply.callNotFound();
      const uploads = stagedFiles(request, "file");
      const back = `/hardware/${record.id}`;
      if (uploads.length === 0)
        return redirectWith(context, reply, back, "error", "Choose a file to upload.");
      const notes = formOf(request).notes;
      try {
        await attachFiles(
          database,
          storage,
          caller,
          originOf(request),
          HARDWARE_FILES,
          record,
          uploads,
          typeof notes === "string" && notes !== "" ? notes : null,
        );
      } catch (error) {
        const messages = Object.values(invalidFields(error)).flat();
        return redirectWith(context, reply, back, "error", messages.join(" "));
      }
      return redirectWith(context, reply, back, "success", "File(s) successfully uploaded.");
    });
  });

  // Deleting asks first, as Snipe-IT's confirmation does (here a page, so it works without JavaScript).
  app.get("/hardware/:id/delete", allowed("assets.delete"), async (request, reply) => {
    const asset = await shownAsset(context, pageCaller(request), idParam(request));
    return render(context, request, reply, "hardware/delete", {
      title: `Delete: ${String(asset.asset_tag)}`,
      asset,
    });
  });

  app.post("/hardware/:id/delete", allowed("assets.delete"), async (request, reply) => {
    const caller = pageCaller(request);
    await deleteAsset(database, caller, originOf(request), idParam(request));
    return redirectWith(context, reply, "/hardware", "success", "The asset was deleted successfully.");
  });

  /** The form of an action, with what was typed and the service's messages when it was refused. */
  const showAction = async (
    request: FastifyRequest,
    reply: FastifyReply,
    action: Action,
    extra: { values?: Record<string, unknown>; errors?: Record<string, string[]> } = {},
    status = 200,
  ) => {
    const caller = pageCaller(request);
    const asset = await shownAsset(context, caller, idParam(request));
    const choices = await actionChoices(database, caller, action);
    return render(
      context,
      request,
      reply,
      `hardware/${action}`,
      {
        title: `${ACTION_TITLES[action]}: ${String(asset.asset_tag)}`,
        asset,
        // An asset is not checked out to itself.
        choices: { ...choices, assets: choices.assets.filter((item) => item.id !== asset.id) },
        values: { checkout_to_type: "user", ...extra.values },
        errors: extra.errors ?? {},
      },
      status,
    );
  };

  /** Runs an action's write; a refusal or bad input shows its form again with the reason. */
  const perform = async (
    request: FastifyRequest,
    reply: FastifyReply,
    action: Action,
    write: (caller: Caller, id: number, input: Record<string, unknown>) => Promise<unknown>,
    done: string,
  ) => {
    const caller = pageCaller(request);
    const id = idParam(request);
    const input = formOf(request);
    try {
      await write(caller, id, input);
    } catch (error) {
      const errors = error instanceof Refused ? { form: [error.message] } : invalidFields(error);
      return showAction(
        request,
        reply,
        action,
        { values: input, errors },
        error instanceof Refused ? 409 : 422,
      );
    }
    return redirectWith(context, reply, `/hardware/${id}`, "success", done);
  };

  for (const action of ["checkout", "checkin", "audit"] as const) {
    app.get(`/hardware/:id/${action}`, allowed(`assets.${action}`), async (request, reply) => {
      // An asset that cannot take the action is said so on its page, as Snipe-IT's pages do,
      // rather than with a form whose every submission would be refused.
      const caller = pageCaller(request);
      const asset = await shownAsset(context, caller, idParam(request));
      const actions = (asset.available_actions ?? {}) as Record<string, boolean>;
      const unavailable = {
        checkout: actions.checkout ? undefined : NOT_AVAILABLE,
        checkin: actions.checkin ? undefined : ALREADY_CHECKED_IN,
        audit: actions.audit ? undefined : ASSET_NOT_FOUND_BY_ROUTE,
      }[action];
      if (unavailable) return redirectWith(context, reply, `/hardware/${asset.id}`, "error", unavailable);
      return showAction(request, reply, action);
    });
  }
  app.post("/hardware/:id/checkout", allowed("assets.checkout"), (request, reply) =>
    perform(
      request,
      reply,
      "checkout",
      async (caller, id, input) => {
        const { target, options } = await checkoutRequest(db(), input);
        return checkoutAsset(database, caller, originOf(request), id, target, options);
      },
      "Asset checked out successfully.",
    ),
  );
  app.post("/hardware/:id/checkin", allowed("assets.checkin"), (request, reply) =>
    perform(
      request,
      reply,
      "checkin",
      async (caller, id, input) =>
        checkinAsset(database, caller, originOf(request), id, await checkinRequest(db(), input)),
      "Asset checked in successfully.",
    ),
  );
  app.post("/hardware/:id/audit", allowed("assets.audit"), (request, reply) =>
    perform(
      request,
      reply,
      "audit",
      async (caller, id, input) => {
        // As the API route binds it: a deleted asset is not there to audit.
        const asset = await findAsset(db(), id, caller, ASSET_NOT_FOUND_BY_ROUTE);
        if (asset.deleted_at !== null) throw new NotFound(ASSET_NOT_FOUND_BY_ROUTE);
        return auditAsset(database, caller, originOf(request), asset, await auditRequest(db(), input));
      },
      "Asset audit successfully logged.",
    ),
  );
}
