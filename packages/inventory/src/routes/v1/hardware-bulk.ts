import { type AnyKysely, Conflict, DomainError, Invalid, NotFound } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { mapInventoryError } from "../../errors.ts";
import type { Row } from "../../repositories/records.ts";
import { ASSET_NOT_FOUND, assets } from "../../resources/assets.ts";
import {
  ASSET_NOT_FOUND_BY_ROUTE,
  assetsWhere,
  auditAssetWithin,
  checkinAssetWithin,
  checkoutAssetWithin,
  deleteAssetWithin,
  liveAsset,
  restoreAssetWithin,
  restoreRefusal,
} from "../../services/assets.ts";
import { type BulkOutcome, inOneTransaction } from "../../services/bulk.ts";
import type { InventoryDatabase } from "../../services/database.ts";
import type { Caller } from "../../services/permissions.ts";
import { duplicateAsInvalid, updateWithin, type WriteContext } from "../../services/resource.ts";
import { attributeName, validate } from "../../services/validation.ts";
import { type ApiContext, authorized, originOf, permitted } from "./context.ts";
import {
  audited,
  auditRequest,
  bodyOf,
  checkedIn,
  checkedOut,
  checkinRequest,
  checkoutRequest,
  deleted,
  restored,
  updated,
} from "./hardware.ts";

// POST /hardware/bulk/{action} (our addition: Snipe-IT has bulk actions only in its web UI). The
// body is the single route's, plus the assets (`ids` or `asset_tags`, up to 500) and `partial`.
// Each asset goes through the single route's own write and answer, inside one transaction
// (services/bulk.ts); the answer holds every asset's envelope as its route would give it.

/** The most assets one request may name. */
export const BULK_LIMIT = 500;

/** The envelope a single route answers (spec §2.3). */
interface Envelope {
  status: string;
  messages: unknown;
  payload: unknown;
}

type AssetRef = { id: number } | { tag: string };

interface BulkAction {
  permission: string;
  /** The past participle the summary uses: "3 assets checked out." */
  done: string;
  /** What the single route answers for a tag it does not find. */
  tagNotFound: (tag: string) => string;
  /** Tags name deleted assets too (a restore). */
  findsDeleted?: boolean;
  /**
   * Reads the body's own fields once, as the single route does before its write; answers the
   * write of one asset, inside the bulk's transaction.
   */
  prepare: (
    db: AnyKysely,
    fields: Record<string, unknown>,
  ) => Promise<(context: WriteContext, id: number) => Promise<Envelope>>;
  /** What the single route answers for an error of its write, once rolled back; rethrows the rest. */
  recover?: (error: unknown) => Envelope;
}

/** The image of a bulk update would be one file shared by every asset, which deletes one by one. */
const IMAGE_FIELDS = ["image", "image_source", "image_delete"];

const ACTIONS: Record<string, BulkAction> = {
  update: {
    permission: "assets.edit",
    done: "updated",
    tagNotFound: () => assets.notFound,
    prepare: async (_db, fields) => {
      const images = IMAGE_FIELDS.filter((field) => fields[field] !== undefined);
      if (images.length > 0)
        throw new Invalid(
          "The given data was invalid.",
          Object.fromEntries(
            images.map((field) => [field, [`The ${attributeName(field)} field cannot be changed in bulk.`]]),
          ),
        );
      return async (context, id) =>
        updated(context.trx, context.caller, await updateWithin(context, assets, id, fields), fields);
    },
    recover: (error) => {
      throw duplicateAsInvalid(assets, error);
    },
  },
  checkout: {
    permission: "assets.checkout",
    done: "checked out",
    tagNotFound: () => ASSET_NOT_FOUND_BY_ROUTE,
    prepare: async (db, fields) => {
      const { target, options } = await checkoutRequest(db, fields);
      return async (context, id) => checkedOut(await checkoutAssetWithin(context, id, target, options));
    },
  },
  checkin: {
    permission: "assets.checkin",
    done: "checked in",
    tagNotFound: (tag) => `Asset with tag ${tag} not found`,
    prepare: async (db, fields) => {
      const options = await checkinRequest(db, fields);
      return async (context, id) => checkedIn(context.trx, await checkinAssetWithin(context, id, options));
    },
  },
  audit: {
    permission: "assets.audit",
    done: "audited",
    tagNotFound: () => ASSET_NOT_FOUND_BY_ROUTE,
    prepare: async (db, fields) => {
      const input = await auditRequest(db, fields);
      return async (context, id) =>
        audited(
          await auditAssetWithin(context, await liveAsset(context, id, ASSET_NOT_FOUND_BY_ROUTE), input),
        );
    },
  },
  delete: {
    permission: "assets.delete",
    done: "deleted",
    tagNotFound: () => ASSET_NOT_FOUND,
    prepare: async () => async (context, id) => {
      await deleteAssetWithin(context, id);
      return deleted();
    },
  },
  restore: {
    permission: "assets.delete",
    done: "restored",
    tagNotFound: () => ASSET_NOT_FOUND_BY_ROUTE,
    findsDeleted: true,
    prepare: async () => async (context, id) => restored(await restoreAssetWithin(context, id)),
    recover: (error) => restored(restoreRefusal(error)),
  },
};

const BULK_RULES = {
  ids: `nullable|array|max:${BULK_LIMIT}`,
  asset_tags: `nullable|array|max:${BULK_LIMIT}`,
  partial: "nullable|boolean",
} as const;

const INVALID = "The given data was invalid.";

/**
 * The assets a bulk request names, refused whole when any is malformed: ids are whole numbers, tags
 * non-empty text, and no asset is named twice (the second would only ever fail, or undo the first
 * under all-or-nothing; a client that repeats one most likely has a bug to hear about).
 */
async function bulkRequest(db: AnyKysely, body: Record<string, unknown>) {
  const values = await validate(db, body, BULK_RULES);
  const { ids: _ids, asset_tags: _tags, partial: _partial, ...fields } = body;
  const ids = (values.ids ?? []) as unknown[];
  const tags = (values.asset_tags ?? []) as unknown[];
  if (ids.length === 0 && tags.length === 0)
    throw new Invalid(INVALID, { ids: ["The ids field is required when asset tags is not present."] });
  if (ids.length > 0 && tags.length > 0)
    throw new Invalid(INVALID, { ids: ["The ids field prohibits asset tags from being present."] });
  const field = ids.length > 0 ? "ids" : "asset_tags";
  const errors: Record<string, string[]> = {};
  const seen = new Set<string>();
  const refs: AssetRef[] = [];
  for (const [index, given] of (ids.length > 0 ? ids : tags).entries()) {
    const key = `${field}.${index}`;
    // An id may come as text, as in a path; a tag is matched exactly as given, as the by-tag routes do.
    const text =
      typeof given === "number"
        ? String(given)
        : typeof given === "string"
          ? field === "ids"
            ? given.trim()
            : given
          : "";
    const id = Number(text);
    if (field === "ids" && !(/^\d+$/.test(text) && Number.isSafeInteger(id)))
      errors[key] = [`The ${attributeName(key)} field must be an integer.`];
    else if (field === "asset_tags" && (typeof given !== "string" || text.trim() === "" || text.length > 255))
      errors[key] = [`The ${attributeName(key)} field must be a string of 1 to 255 characters.`];
    else if (seen.has(text)) errors[key] = [`The ${attributeName(key)} field has a duplicate value.`];
    seen.add(text);
    refs.push(field === "ids" ? { id } : { tag: given as string });
  }
  if (Object.keys(errors).length > 0) throw new Invalid(INVALID, errors);
  return { refs, partial: values.partial === true, fields };
}

/** What an item's reference names: the asset, or the single route's answer for a tag it does not find. */
interface Named {
  asset?: Row;
  refusal?: DomainError;
}

/**
 * The assets the references name, as the caller may see them, in one query rather than one per
 * item; read before the transaction, as the single routes find their asset before theirs (the
 * write reads it again, locked).
 */
async function named(db: AnyKysely, refs: AssetRef[], action: BulkAction, caller: Caller) {
  const byIds = refs.length > 0 && "id" in refs[0];
  const values = refs.map((ref) => ("id" in ref ? ref.id : ref.tag));
  const rows = await assetsWhere(
    db,
    byIds ? "id" : "asset_tag",
    values,
    byIds || action.findsDeleted === true,
    caller,
  );
  const byKey = new Map<string, Row[]>();
  for (const row of rows) {
    const key = byIds ? String(row.id) : String(row.asset_tag);
    byKey.set(key, [...(byKey.get(key) ?? []), row]);
  }
  const found = new Map<AssetRef, Named>();
  for (const ref of refs) {
    const matches = byKey.get("id" in ref ? String(ref.id) : ref.tag) ?? [];
    if ("id" in ref || matches.length === 1) found.set(ref, { asset: matches[0] });
    // Deleted assets may share a tag with each other and with a live one.
    else if (matches.length > 1)
      found.set(ref, { refusal: new Conflict(`Several assets have the tag ${ref.tag}; name them by id.`) });
    else found.set(ref, { refusal: new NotFound(action.tagNotFound(ref.tag)) });
  }
  return found;
}

interface ItemAnswer {
  id: number | null;
  asset_tag: string | null;
  envelope: Envelope;
  /** The HTTP status the single route would have answered. */
  httpStatus: number;
}

/** The answer of a bulk action (the API's body), and the HTTP status its route gives. */
export interface BulkAnswer {
  httpStatus: number;
  body: { status: string; messages: string; payload: { results: Record<string, unknown>[] } };
}

/** The bulk actions by name, each with the permission its route checks first. */
export const BULK_PERMISSIONS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(ACTIONS).map(([name, action]) => [name, action.permission]),
);

/**
 * One bulk action of the caller's on the assets `body` names, as POST /hardware/bulk/{name} does
 * it: the API route and the asset list's page both come here. The caller's permission for the
 * action is checked by the caller's route before the body is read.
 */
export async function bulkWrite(
  database: InventoryDatabase,
  request: FastifyRequest,
  caller: Caller,
  name: string,
  body: Record<string, unknown>,
): Promise<BulkAnswer> {
  const action = ACTIONS[name];
  if (!action) throw new NotFound(`No bulk action ${name}.`);
  const db = database.db as AnyKysely;
  const { refs, partial, fields } = await bulkRequest(db, body);
  const write = await action.prepare(db, fields);
  const failure = (ref: AssetRef, asset: Row | undefined, error: unknown): BulkOutcome<ItemAnswer> => {
    if (!(error instanceof DomainError)) throw error;
    const mapped = mapInventoryError({ kind: "domain", error }, { request, rootUrl: request.rootUrl });
    return { answer: itemAnswer(ref, asset, mapped.body as Envelope, mapped.status), failed: true };
  };
  const assetsOf = await named(db, refs, action, caller);
  const result = await inOneTransaction(
    database,
    caller,
    originOf(request),
    refs,
    { partial },
    {
      run: async (inside, ref) => {
        const { asset, refusal } = assetsOf.get(ref) ?? {};
        if (refusal) throw refusal;
        const envelope = await write(inside, asset ? Number(asset.id) : (ref as { id: number }).id);
        return { answer: itemAnswer(ref, asset, envelope, 200), failed: envelope.status !== "success" };
      },
      settle: (error, ref) => {
        const asset = assetsOf.get(ref)?.asset;
        if (!action.recover) return failure(ref, asset, error);
        try {
          const envelope = action.recover(error);
          return {
            answer: itemAnswer(ref, asset, envelope, 200),
            failed: envelope.status !== "success",
          };
        } catch (recovered) {
          return failure(ref, asset, recovered);
        }
      },
    },
  );
  return answer(action, refs.length, result);
}

export function registerHardwareBulk(context: ApiContext): void {
  const { app, database } = context;
  const schema = {
    tags: ["hardware"],
    body: Type.Object(
      {
        ids: Type.Optional(Type.Array(Type.Integer(), { maxItems: BULK_LIMIT })),
        asset_tags: Type.Optional(Type.Array(Type.String(), { maxItems: BULK_LIMIT })),
        partial: Type.Optional(Type.Boolean({ description: "keep the assets that succeed" })),
      },
      { description: "and the fields of the single-asset route", additionalProperties: true },
    ),
  };
  for (const [name, action] of Object.entries(ACTIONS))
    app.post(
      `/hardware/bulk/${name}`,
      { schema, config: permitted(action.permission) },
      async (request, reply) => {
        const caller = authorized(request, action.permission);
        const { httpStatus, body } = await bulkWrite(database, request, caller, name, bodyOf(request));
        return reply.status(httpStatus).send(body);
      },
    );
}

function itemAnswer(
  ref: AssetRef,
  asset: Row | undefined,
  envelope: Envelope,
  httpStatus: number,
): ItemAnswer {
  return {
    id: asset ? Number(asset.id) : "id" in ref ? ref.id : null,
    asset_tag: asset ? String(asset.asset_tag) : "tag" in ref ? ref.tag : null,
    envelope,
    httpStatus,
  };
}

/**
 * Every asset's answer when all held (or with `partial`); when nothing was kept, only the assets
 * that failed, since the others' answers describe writes that were undone. The HTTP status is the
 * first failure's, as its single route gives it (200 unless X-Api-Strict-Status), when nothing
 * was kept, and 200 when anything was.
 */
function answer(
  action: BulkAction,
  total: number,
  result: { outcomes: BulkOutcome<ItemAnswer>[]; committed: boolean },
): BulkAnswer {
  const failed = result.outcomes.filter((outcome) => outcome.failed);
  const held = result.committed ? total - failed.length : 0;
  const shown = result.committed ? result.outcomes : failed;
  const results = shown.map(({ answer: item }) => ({
    id: item.id,
    asset_tag: item.asset_tag,
    ...item.envelope,
  }));
  if (failed.length === 0)
    return {
      httpStatus: 200,
      body: { status: "success", messages: `${total} assets ${action.done}.`, payload: { results } },
    };
  const messages = result.committed
    ? `${held} of ${total} assets ${action.done}; ${failed.length} failed.`
    : `Nothing was changed: ${failed.length} of ${total} assets could not be ${action.done}.`;
  return {
    httpStatus: held === 0 ? failed[0].answer.httpStatus : 200,
    body: { status: "error", messages, payload: { results } },
  };
}
