import { type AnyKysely, Invalid, NotFound } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { assetAnswer, assetListAnswer, presentAssets } from "../../convert/asset.ts";
import type { Row } from "../../repositories/records.ts";
import { ASSET_NOT_FOUND, assets, toDay } from "../../resources/assets.ts";
import { assetHistory } from "../../services/activity-report.ts";
import {
  ASSET_NOT_FOUND_BY_ROUTE,
  type AuditAnswer,
  type AuditInput,
  assetByTag,
  assetsWhere,
  auditAsset,
  checkinAsset,
  checkoutAsset,
  deleteAsset,
  dueFilter,
  findAsset,
  findAssetPage,
  type RestoreAnswer,
  restoreAsset,
  withComponents,
} from "../../services/assets.ts";
import { type CheckinOptions, type CheckoutOptions, checkinPayload } from "../../services/checkout.ts";
import { ENCRYPTED_NOT_UPDATED, skipsEncrypted, storedColumns } from "../../services/custom-values.ts";
import type { Caller } from "../../services/permissions.ts";
import { createResource, updateResource } from "../../services/resource.ts";
import { labelType } from "../../services/statuslabels.ts";
import { bodySchema, validate } from "../../services/validation.ts";
import { type ApiContext, authorized, idParam, originOf, permitted, sendList, success } from "./context.ts";
import { withImage } from "./images.ts";
import { IdParams, KeysetListQuery, ListQuery, rawRow } from "./resource.ts";

// /hardware (spec §7): assets, their lookups by tag and serial, check-out, check-in, audit,
// delete and restore. Each route checks its permission first, then hands over to services/assets.

const tags = ["hardware"];

const HardwareListQuery = Type.Object({
  ...KeysetListQuery.properties,
  filter: Type.Optional(
    Type.String({ description: "JSON object of column → text each column contains; search is then ignored" }),
  ),
  components: Type.Optional(Type.String({ description: "true: each asset's components[]" })),
});

export const CHECKOUT_RULES = {
  checkout_to_type: "required|string|in:user,location,asset",
  assigned_user: "nullable|integer",
  assigned_location: "nullable|integer",
  assigned_asset: "nullable|integer",
  status_id: "nullable|integer|exists:status_labels",
  checkout_at: "nullable|date",
  expected_checkin: "nullable|date",
  name: "nullable|string|max:255",
  note: "nullable|string|max:65535",
} as const;

const CHECKIN_RULES = {
  note: "nullable|string|max:65535",
  name: "nullable|string|max:255",
  update_default_location: "nullable|boolean",
} as const;

const AUDIT_RULES = {
  note: "nullable|string|max:65535",
  next_audit_date: "nullable|date",
  update_location: "nullable|boolean",
  location_id: "nullable|integer",
} as const;

export function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const given = request.body;
  return typeof given === "object" && given !== null && !Array.isArray(given)
    ? (given as Record<string, unknown>)
    : {};
}

function optionalId(value: unknown): number | undefined {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}

/** A date or date-time as given; one without a zone is UTC, as the stored times are. */
function utcInstant(text: string): Date {
  const local = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2})?))?$/.exec(text.trim());
  const instant = new Date(local ? `${local[1]}T${local[2] ?? "00:00:00"}Z` : Date.parse(text));
  return Number.isNaN(instant.getTime()) ? new Date(Date.parse(text)) : instant;
}

/** The check-out a request asks for, validated as Snipe-IT's AssetCheckoutRequest does. */
export async function checkoutRequest(
  db: AnyKysely,
  input: Record<string, unknown>,
): Promise<{ target: { type: "user" | "location" | "asset"; id: number }; options: CheckoutOptions }> {
  const type = String(input.checkout_to_type ?? "").toLowerCase();
  const rules: Record<string, string> = { ...CHECKOUT_RULES };
  const messages: Record<string, string> = {};
  if (type === "user" || type === "location" || type === "asset") {
    rules[`assigned_${type}`] = "required|integer";
    messages[`assigned_${type}.required`] =
      `The assigned ${type} field is required when checkout to type is ${type}.`;
  }
  let values: Record<string, unknown> = {};
  let errors: Record<string, string[]> = {};
  try {
    values = await validate(db, input, rules, messages);
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    errors = { ...error.details };
  }
  // The new label must be deployable; said with the other fields' messages.
  const statusId = optionalId(input.status_id);
  if (
    statusId !== undefined &&
    errors.status_id === undefined &&
    (await labelType(db, statusId)) !== "deployable"
  )
    errors.status_id = ["The selected status id is invalid."];
  if (Object.keys(errors).length > 0) throw new Invalid("The given data was invalid.", errors);
  const kind = type as "user" | "location" | "asset";
  return {
    target: { type: kind, id: values[`assigned_${kind}`] as number },
    options: {
      note: values.note as string | null | undefined,
      checkoutAt: typeof values.checkout_at === "string" ? utcInstant(values.checkout_at) : undefined,
      expectedCheckin: toDay(values.expected_checkin),
      // A null label (a form's empty choice) keeps the asset's own, as no label does.
      statusId: (values.status_id as number | null | undefined) ?? undefined,
      name: values.name as string | null | undefined,
    },
  };
}

/** The check-in a request asks for; ids that are not ids are not applied (QUIRK: not validated). */
export async function checkinRequest(db: AnyKysely, input: Record<string, unknown>): Promise<CheckinOptions> {
  const values = await validate(db, input, CHECKIN_RULES);
  let checkinAt: Date | undefined;
  if (input.checkin_at !== undefined && input.checkin_at !== null && input.checkin_at !== "") {
    const day = String(input.checkin_at);
    const parsed = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(day) ? `${day}T00:00:00Z` : day);
    if (typeof input.checkin_at !== "string" || Number.isNaN(parsed))
      throw new Invalid("The date field must be a valid date.");
    // A day gets the time of day of the check-in.
    const now = new Date();
    checkinAt = /^\d{4}-\d{2}-\d{2}$/.test(day)
      ? new Date(`${day}T${now.toISOString().slice(11)}`)
      : new Date(parsed);
  }
  return {
    note: values.note as string | null | undefined,
    name: values.name as string | null | undefined,
    statusId: optionalId(input.status_id),
    locationId: optionalId(input.location_id),
    updateDefaultLocation: values.update_default_location === true,
    checkinAt,
  };
}

/** The audit a request asks for. */
export async function auditRequest(db: AnyKysely, input: Record<string, unknown>): Promise<AuditInput> {
  const values = await validate(db, input, AUDIT_RULES);
  return {
    note: values.note as string | null | undefined,
    nextAuditDate: toDay(values.next_audit_date),
    locationId: values.update_location === true ? optionalId(values.location_id) : undefined,
    customValues: input,
  };
}

// What each route answers once its write is done, the bulk routes' items too (hardware-bulk.ts).

export function checkedOut(row: Row) {
  return success("Asset checked out successfully.", { asset: row.asset_tag });
}

export async function checkedIn(db: AnyKysely, row: Row) {
  return success("Asset checked in successfully.", await checkinPayload(db, row));
}

export function audited(answer: AuditAnswer) {
  return success("Asset audit successfully logged.", answer);
}

export function deleted() {
  return success(assets.messages.delete);
}

export function restored(answer: RestoreAnswer) {
  // QUIRK kept: the message comes in the payload slot (spec §2.3).
  return { status: answer.restored ? "success" : "error", messages: null, payload: answer.message };
}

/** `db` is the write's transaction when the answer is made inside it. */
export async function updated(db: AnyKysely, caller: Caller, row: Row, input: Record<string, unknown>) {
  const skipped = await skipsEncrypted(db, caller, row.model_id, input);
  return success(
    skipped ? ENCRYPTED_NOT_UPDATED : assets.messages.update,
    rawRow(await reread(db, row.id, caller)),
  );
}

export function registerHardware(context: ApiContext): void {
  const { app, database } = context;
  const db = () => database.db as AnyKysely;
  const shown = (request: FastifyRequest) => ({
    components: withComponents(request.query as Record<string, unknown>),
  });
  const show = async (request: FastifyRequest, reply: FastifyReply, caller: Caller, row: Row) =>
    reply.type("application/json; charset=utf-8").send(await assetAnswer(db(), caller, row, shown(request)));
  const list = async (request: FastifyRequest, caller: Caller, rows: Row[]) => ({
    total: rows.length,
    rows: await presentAssets(db(), caller, rows, shown(request)),
  });
  /** A page of findAssetPage, its headers set by sendList, its body kept serialized (assetListAnswer). */
  const sendAssets = async (
    request: FastifyRequest,
    reply: FastifyReply,
    caller: Caller,
    page: Awaited<ReturnType<typeof findAssetPage>>,
  ) => {
    const { total, rows } = sendList(request, reply, page.params, page);
    const body = await assetListAnswer(db(), caller, total, rows as Row[], shown(request));
    return reply.type("application/json; charset=utf-8").send(body);
  };

  app.get("/hardware", { schema: { tags, querystring: HardwareListQuery } }, async (request, reply) => {
    const caller = authorized(request, "assets.view");
    const page = await findAssetPage(database, caller, request.query as Record<string, unknown>);
    return sendAssets(request, reply, caller, page);
  });

  for (const kind of ["audits", "audit", "checkins"] as const)
    for (const when of ["due", "overdue", "due-or-overdue"] as const) {
      const narrow = dueFilter(kind === "checkins" ? "checkins" : "audits", when);
      app.get(
        `/hardware/${kind}/${when}`,
        { schema: { tags, querystring: HardwareListQuery } },
        async (request, reply) => {
          const caller = authorized(request, "assets.view");
          const page = await findAssetPage(database, caller, request.query as Record<string, unknown>, {
            narrow,
          });
          return sendAssets(request, reply, caller, page);
        },
      );
    }

  app.get("/hardware/:id", { schema: { tags, params: IdParams } }, async (request, reply) => {
    const caller = authorized(request, "assets.view");
    return show(request, reply, caller, await findAsset(db(), idParam(request), caller));
  });

  app.get("/hardware/bytag/*", { schema: { tags } }, async (request, reply) => {
    const caller = authorized(request, "assets.view");
    const tag = (request.params as Record<string, string>)["*"];
    const withDeleted = (request.query as Record<string, unknown>).deleted === "true";
    const rows = await assetsWhere(db(), "asset_tag", tag, withDeleted, caller);
    if (rows.length === 0) throw new NotFound(ASSET_NOT_FOUND);
    return withDeleted || rows.length > 1
      ? list(request, caller, rows)
      : show(request, reply, caller, rows[0]);
  });

  app.get("/hardware/byserial/*", { schema: { tags } }, async (request) => {
    const caller = authorized(request, "assets.view");
    const serial = (request.params as Record<string, string>)["*"];
    const withDeleted = (request.query as Record<string, unknown>).deleted === "true";
    const rows = await assetsWhere(db(), "serial", serial, withDeleted, caller);
    if (rows.length === 0) throw new NotFound(ASSET_NOT_FOUND);
    return list(request, caller, rows);
  });

  app.get(
    "/hardware/:id/history",
    { schema: { tags, params: IdParams, querystring: ListQuery } },
    async (request, reply) => {
      const caller = authorized(request, "assets.view");
      const asset = await findAsset(db(), idParam(request), caller);
      const page = await assetHistory(database, asset.id, request.query as Record<string, unknown>);
      return sendList(request, reply, page.params, page);
    },
  );

  const writeSchema = { tags, body: bodySchema(assets.rules) };
  app.post("/hardware", { schema: writeSchema, config: permitted("assets.create") }, async (request) => {
    const caller = authorized(request, "assets.create");
    const input = bodyOf(request);
    const row = await withImage(context, request, input, "assets", undefined, (server) =>
      createResource(database, assets, caller, originOf(request), input, server),
    );
    return success(assets.messages.create, rawRow(await reread(db(), row.id, caller)));
  });

  const update = async (request: FastifyRequest) => {
    const caller = authorized(request, "assets.edit");
    const input = bodyOf(request);
    const row = await withImage(context, request, input, "assets", idParam(request), (server) =>
      updateResource(database, assets, caller, originOf(request), idParam(request), input, server),
    );
    return updated(db(), caller, row, input);
  };
  const edits = { schema: { ...writeSchema, params: IdParams }, config: permitted("assets.edit") };
  app.patch("/hardware/:id", edits, update);
  app.put("/hardware/:id", edits, update);

  const deletes = { schema: { tags, params: IdParams }, config: permitted("assets.delete") };
  app.delete("/hardware/:id", deletes, async (request) => {
    const caller = authorized(request, "assets.delete");
    await deleteAsset(database, caller, originOf(request), idParam(request));
    return deleted();
  });

  app.post("/hardware/:id/restore", deletes, async (request) => {
    const caller = authorized(request, "assets.delete");
    return restored(await restoreAsset(database, caller, originOf(request), idParam(request)));
  });

  const checkout = async (request: FastifyRequest, asset: Row) => {
    const caller = authorized(request, "assets.checkout");
    const { target, options } = await checkoutRequest(db(), bodyOf(request));
    return checkedOut(await checkoutAsset(database, caller, originOf(request), asset.id, target, options));
  };
  const checkin = async (request: FastifyRequest, asset: Row) => {
    const caller = authorized(request, "assets.checkin");
    const options = await checkinRequest(db(), bodyOf(request));
    return checkedIn(db(), await checkinAsset(database, caller, originOf(request), asset.id, options));
  };
  const live = async (request: FastifyRequest, caller: Caller) => {
    const row = await findAsset(db(), idParam(request), caller, ASSET_NOT_FOUND_BY_ROUTE);
    if (row.deleted_at !== null) throw new NotFound(ASSET_NOT_FOUND_BY_ROUTE);
    return row;
  };

  const checkouts = { schema: { tags, params: IdParams }, config: permitted("assets.checkout") };
  const checkins = { schema: { tags, params: IdParams }, config: permitted("assets.checkin") };
  app.post("/hardware/:id/checkout", checkouts, async (request) => {
    const caller = authorized(request, "assets.checkout");
    return checkout(request, await live(request, caller));
  });
  app.post("/hardware/:id/checkin", checkins, async (request) => {
    const caller = authorized(request, "assets.checkin");
    return checkin(request, await live(request, caller));
  });
  const checkinsByTag = { schema: { tags }, config: permitted("assets.checkin") };
  app.post("/hardware/checkinbytag", checkinsByTag, async (request) => {
    const caller = authorized(request, "assets.checkin");
    const tag = String(bodyOf(request).asset_tag ?? "");
    return checkin(request, await assetByTag(db(), tag, `Asset with tag ${tag} not found`, caller));
  });
  // A tag may contain "/", so the action is the path's last segment; its permission is checked
  // before the body is read (an unknown action is a missing route, whoever asks).
  const tagAction = (request: FastifyRequest) => {
    const path = (request.params as Record<string, string>)["*"];
    const slash = path.lastIndexOf("/");
    return [path.slice(0, slash), path.slice(slash + 1)];
  };
  const tagActionPermitted = (request: FastifyRequest) => {
    const [, action] = tagAction(request);
    if (action === "checkout" || action === "checkin") authorized(request, `assets.${action}`);
  };
  const byTag = { schema: { tags }, config: { authorize: tagActionPermitted } };
  app.post("/hardware/bytag/*", byTag, async (request, reply) => {
    const [tag, action] = tagAction(request);
    if (action === "checkout") {
      const caller = authorized(request, "assets.checkout");
      return checkout(request, await assetByTag(db(), tag, ASSET_NOT_FOUND_BY_ROUTE, caller));
    }
    if (action === "checkin") {
      const caller = authorized(request, "assets.checkin");
      return checkin(request, await assetByTag(db(), tag, `Asset with tag ${tag} not found`, caller));
    }
    return reply.callNotFound();
  });

  const audit = async (request: FastifyRequest, asset: Row) => {
    const caller = authorized(request, "assets.audit");
    const input = await auditRequest(db(), bodyOf(request));
    return audited(await auditAsset(database, caller, originOf(request), asset, input));
  };
  const audits = { schema: { tags, params: IdParams }, config: permitted("assets.audit") };
  app.post("/hardware/:id/audit", audits, async (request) => {
    const caller = authorized(request, "assets.audit");
    return audit(request, await live(request, caller));
  });
  const auditsByTag = { schema: { tags }, config: permitted("assets.audit") };
  app.post("/hardware/audit", auditsByTag, async (request) => {
    const caller = authorized(request, "assets.audit");
    return audit(
      request,
      await assetByTag(db(), String(bodyOf(request).asset_tag ?? ""), ASSET_NOT_FOUND_BY_ROUTE, caller),
    );
  });
}

/**
 * The row as stored after every write of its transaction (a check-out on creation changes it), with
 * the custom field columns Snipe-IT's assets table has.
 */
async function reread(db: AnyKysely, id: number, caller: Caller): Promise<Row> {
  return { ...(await findAsset(db, id, caller)), ...(await storedColumns(db, id)) };
}
