import { isIP, isIPv4, isIPv6 } from "node:net";
import {
  type AnyKysely,
  containsText,
  type DialectName,
  forUpdate,
  Invalid,
  keptRows,
  type SecretCipher,
  secretCipher,
} from "@anvil/core";
import { type Expression, sql } from "kysely";
import { date, escaped } from "../convert/format.ts";
import type { AnyExpressionBuilder, AnySelect, Row } from "../repositories/records.ts";
import {
  type FieldsetField,
  fieldsOfFieldsets,
  flag,
  formatName,
  isCustomColumn,
  regexOf,
} from "./custom-fields.ts";
import { type Caller, can } from "./permissions.ts";
import type { WriteContext } from "./resource.ts";
import { attributeName, dayOf, isEmailAddress, isUrl, isValidDate } from "./validation.ts";

// An asset's custom field values (spec §7.3, §7.4): one row per asset and field in
// asset_custom_values, read and written by the field's column name. Which fields an asset has is
// its model's fieldset; values are checked against the field's format, its options, the
// fieldset's `required` and the field's `is_unique`, in the transaction of the asset's write.

export const NOT_ON_FIELDSET =
  "This field seems to exist, but is not available on this Asset Model's fieldset.";
export const NO_SUCH_FIELD =
  "This field does not seem to exist, please double check your custom field names.";
export const ENCRYPTED_NOT_UPDATED =
  "Asset updated successfully, but encrypted custom fields were not due to permissions";
/** Who may read encrypted values, and write them. */
export const ENCRYPTED_PERMISSION = "assets.view.encrypted_custom_fields";
const ENCRYPTED = "ENCRYPTED";
/** The key of encrypted values, made by migration 0006. */
const CUSTOM_FIELDS_KEY = "custom_fields";
/** How the activity log shows an encrypted value that changed. */
const HIDDEN = "*************";
const INVALID = "The given data was invalid.";

/** The changes of a write, as the activity log's log_meta records them. */
export type ChangedFields = Record<string, { old: unknown; new: unknown }>;

const NUMERIC = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
// The spellings PHP's FILTER_VALIDATE_BOOLEAN reads, which Snipe-IT applies to BOOLEAN fields.
const BOOLEANS: Readonly<Record<string, string>> = {
  "1": "1",
  true: "1",
  on: "1",
  yes: "1",
  "0": "0",
  false: "0",
  off: "0",
  no: "0",
};

/** Laravel's rule behind each predefined format, and the end of its message. */
const FORMAT_RULES: Readonly<Record<string, { test: (value: string) => boolean; message: string }>> = {
  alpha: { test: (value) => /^[\p{L}\p{M}]+$/u.test(value), message: "must only contain letters" },
  alpha_dash: {
    test: (value) => /^[\p{L}\p{M}\p{N}_-]+$/u.test(value),
    message: "must only contain letters, numbers, dashes, and underscores",
  },
  alpha_num: {
    test: (value) => /^[\p{L}\p{M}\p{N}]+$/u.test(value),
    message: "must only contain letters and numbers",
  },
  numeric: { test: (value) => NUMERIC.test(value), message: "must be a number" },
  email: { test: isEmailAddress, message: "must be a valid email address" },
  date: { test: isValidDate, message: "must be a valid date" },
  url: { test: isUrl, message: "must be a valid URL" },
  ip: { test: (value) => isIP(value) !== 0, message: "must be a valid IP address" },
  ipv4: { test: isIPv4, message: "must be a valid IPv4 address" },
  ipv6: { test: isIPv6, message: "must be a valid IPv6 address" },
  boolean: {
    test: (value) => Object.hasOwn(BOOLEANS, value.toLowerCase()),
    message: "must be true or false",
  },
};

/** A value as sent, made the text stored: a date as `YYYY-MM-DD`, a boolean as 1 or 0. */
function normalized(rule: string, text: string): string {
  if (rule === "boolean") return BOOLEANS[text.toLowerCase()];
  if (rule === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(text)) return dayOf(text);
  return text;
}

/** The options of a listbox, radio or checkbox field: the part before `|` of each line. */
function optionsOf(field: Row): string[] {
  return String(field.field_values ?? "")
    .split(/\r\n|\r|\n/)
    .map((line) => line.split("|")[0].trim())
    .filter((option) => option !== "");
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "1" : "0";
  return undefined;
}

type Checked = { value: string | null } | { error: string };

/**
 * The text a value sent for a field is stored as (null: no value), or the message refusing it, in
 * Laravel's words about the column (`The  snipeit mac 3 field format is invalid.`).
 */
export function checkValue(field: Row, raw: unknown): Checked {
  const attribute = attributeName(String(field.db_column));
  const element = String(field.element);
  if (raw === null || raw === undefined || raw === "") return { value: null };
  let text: string | undefined;
  if (Array.isArray(raw) && element === "checkbox") {
    const items = raw.map(scalarText);
    if (items.some((item) => item === undefined)) return { error: `${attribute} contains invalid options.` };
    text = items.join(",");
  } else if (typeof raw === "object") return { error: `${attribute} cannot be an array.` };
  else text = scalarText(raw);
  if (text === undefined) return { error: `${attribute} cannot be an array.` };

  const rule = String(field.format ?? "");
  const known = FORMAT_RULES[rule];
  if (known && !known.test(text)) return { error: `The ${attribute} field ${known.message}.` };
  if (rule.startsWith("regex:") && !regexOf(rule)?.test(text))
    return { error: `The ${attribute} field format is invalid.` };

  const options = optionsOf(field);
  if (element === "listbox" && !options.includes(text))
    return { error: `The selected ${attribute} is invalid.` };
  if (element === "radio" && !options.includes(text)) return { error: `${attribute} is invalid.` };
  if (element === "checkbox" && text.split(",").some((item) => !options.includes(item.trim())))
    return { error: `${attribute} contains invalid options.` };
  return { value: known ? normalized(rule, text) : text };
}

/** The fields of the fieldset of an asset model (none when it has no fieldset). */
export async function fieldsOfModel(db: AnyKysely, modelId: unknown): Promise<FieldsetField[]> {
  const model = await db
    .selectFrom("models")
    .select("fieldset_id")
    .where("id", "=", Number(modelId))
    .executeTakeFirst();
  const fieldsetId = model?.fieldset_id;
  if (fieldsetId === null || fieldsetId === undefined) return [];
  return (await fieldsOfFieldsets(db, [Number(fieldsetId)])).get(Number(fieldsetId)) ?? [];
}

/** Refuses columns that are not on the fieldset, saying whether such a field exists at all. */
async function refuseForeignColumns(db: AnyKysely, keys: string[], fields: FieldsetField[]): Promise<void> {
  const own = new Set(fields.map(({ field }) => String(field.db_column)));
  const foreign = keys.filter((key) => !own.has(key));
  if (foreign.length === 0) return;
  const known = await db
    .selectFrom("custom_fields")
    .select("db_column")
    .where("db_column", "in", foreign)
    .execute();
  const existing = new Set(known.map((row) => String(row.db_column)));
  throw new Invalid(
    INVALID,
    Object.fromEntries(foreign.map((key) => [key, [existing.has(key) ? NOT_ON_FIELDSET : NO_SUCH_FIELD]])),
  );
}

/** The stored values of an asset, by field id. */
async function storedValues(db: AnyKysely, assetId: number): Promise<Map<number, string>> {
  const rows = await db
    .selectFrom("asset_custom_values")
    .select(["custom_field_id", "value"])
    .where("asset_id", "=", assetId)
    .execute();
  return new Map(rows.map((row) => [Number(row.custom_field_id), String(row.value)]));
}

/** A model's default values, by field id. */
export async function modelDefaults(db: AnyKysely, modelId: unknown): Promise<Map<number, string>> {
  const rows = await db
    .selectFrom("models_custom_fields")
    .select(["custom_field_id", "default_value"])
    .where("asset_model_id", "=", Number(modelId))
    .execute();
  return new Map(
    rows
      .filter((row) => row.default_value !== null && row.default_value !== "")
      .map((row) => [Number(row.custom_field_id), String(row.default_value)]),
  );
}

/**
 * Whether another undeleted asset has this value of the field. The field's row is locked first, so
 * two writers of one unique field take turns (SQLite's writers always do).
 */
async function valueTaken(
  context: WriteContext,
  field: Row,
  plain: string,
  assetId: number,
  cipher: SecretCipher | undefined,
): Promise<boolean> {
  const { trx, database } = context;
  await trx
    .selectFrom("custom_fields")
    .select("id")
    .where("id", "=", field.id)
    .$call(forUpdate(database.dialect))
    .execute();
  const others = trx
    .selectFrom("asset_custom_values")
    .innerJoin("assets", "assets.id", "asset_custom_values.asset_id")
    .select("asset_custom_values.value")
    .where("asset_custom_values.custom_field_id", "=", field.id)
    .where("assets.deleted_at", "is", null)
    .where("asset_custom_values.asset_id", "!=", assetId);
  if (!cipher)
    return (await others.where("asset_custom_values.value", "=", plain).executeTakeFirst()) !== undefined;
  return (await others.execute()).some((row) => cipher.decrypt(String(row.value)) === plain);
}

/** Which of an asset's writes it is: values on create get defaults; an audit writes only audit fields. */
export type ValuesWrite = "create" | "update" | "audit";

/**
 * Checks and stores the custom values `input` sends for an asset already saved in this
 * transaction (`asset` as it now is), and answers the changes for the activity log. Throws Invalid,
 * writing nothing, when a value is refused: a column that is not on the model's fieldset, a value
 * of the wrong format or not among the options, a required field left empty, a unique value taken.
 * Encrypted fields are written only by callers who may read them; on create the others get the
 * model's default.
 */
export async function saveAssetValues(
  context: WriteContext,
  asset: Row,
  input: Readonly<Record<string, unknown>>,
  write: ValuesWrite,
): Promise<ChangedFields> {
  const { trx, caller } = context;
  const fields = await fieldsOfModel(trx, asset.model_id);
  // An audit takes the fields shown on its form and passes over the rest, as Snipe-IT's does.
  if (write !== "audit") await refuseForeignColumns(trx, Object.keys(input).filter(isCustomColumn), fields);
  if (fields.length === 0) return {};
  const mayEncrypted = can(caller, ENCRYPTED_PERMISSION);
  const [current, defaults] = await Promise.all([
    write === "create" ? new Map<number, string>() : storedValues(trx, asset.id),
    write === "create" ? modelDefaults(trx, asset.model_id) : new Map<number, string>(),
  ]);
  const cipher = fields.some(({ field }) => flag(field, "field_encrypted"))
    ? await secretCipher(context.database.db as AnyKysely, CUSTOM_FIELDS_KEY, trx)
    : undefined;

  const errors: Record<string, string[]> = {};
  const writes: { field: Row; plain: string | null }[] = [];
  for (const { field, required } of fields) {
    const column = String(field.db_column);
    const encrypted = flag(field, "field_encrypted");
    const given =
      column in input && (write !== "audit" || flag(field, "display_audit")) && (!encrypted || mayEncrypted);
    let plain: string | null = null;
    if (given) {
      const checked = checkValue(field, input[column]);
      if ("error" in checked) {
        errors[column] = [checked.error];
        continue;
      }
      plain = checked.value;
    }
    if (write === "create" && plain === null) plain = defaults.get(Number(field.id)) ?? null;
    // Laravel validates the asset as saved: what is stored counts where nothing is sent.
    const kept = !given && write !== "create" && current.has(Number(field.id));
    const checksRequired = write === "audit" ? given : !encrypted || mayEncrypted;
    if (required && checksRequired && plain === null && !kept) {
      errors[column] = [`The ${attributeName(column)} field is required.`];
      continue;
    }
    if (!given && !(write === "create" && plain !== null)) continue;
    if (plain !== null && flag(field, "is_unique")) {
      if (await valueTaken(context, field, plain, asset.id, encrypted ? cipher : undefined)) {
        errors[column] = [`The ${attributeName(column)} must be unique.`];
        continue;
      }
    }
    writes.push({ field, plain });
  }
  if (Object.keys(errors).length > 0) throw new Invalid(INVALID, errors);

  const changes: ChangedFields = {};
  for (const { field, plain } of writes) {
    const id = Number(field.id);
    const encrypted = flag(field, "field_encrypted");
    const stored = current.get(id);
    const before = stored === undefined ? null : encrypted ? (cipher?.decrypt(stored) ?? null) : stored;
    if (before === plain) continue;
    if (plain === null)
      await trx
        .deleteFrom("asset_custom_values")
        .where("asset_id", "=", asset.id)
        .where("custom_field_id", "=", id)
        .execute();
    else {
      const value = encrypted && cipher ? cipher.encrypt(plain) : plain;
      await trx
        .insertInto("asset_custom_values")
        .values({ asset_id: asset.id, custom_field_id: id, value })
        .onConflict((conflict) => conflict.columns(["asset_id", "custom_field_id"]).doUpdateSet({ value }))
        .execute();
    }
    changes[String(field.db_column)] = encrypted ? { old: HIDDEN, new: HIDDEN } : { old: before, new: plain };
  }
  return changes;
}

/**
 * A model's default values (`default_values`: field id → value, as Snipe-IT's model form sends
 * them) replace the ones it had; `add_default_values` false, or `default_values` null, clears them.
 * Each is checked as an asset's value would be, except that a required field may have none.
 */
export async function saveModelDefaults(
  context: WriteContext,
  model: Row,
  values: Readonly<Record<string, unknown>>,
): Promise<void> {
  const { trx } = context;
  const given = values.default_values;
  if (given === undefined && values.add_default_values !== false) return;
  await trx.deleteFrom("models_custom_fields").where("asset_model_id", "=", model.id).execute();
  if (given === undefined || given === null || values.add_default_values === false) return;
  const fields = new Map(
    (await fieldsOfModel(trx, model.id)).map(({ field }) => [String(field.id), field] as const),
  );
  const sent = given as Record<string, unknown>;
  const strangers = Object.keys(sent).filter((key) => !fields.has(key));
  const ids = strangers.filter((key) => /^\d+$/.test(key)).map(Number);
  const known =
    ids.length === 0
      ? []
      : await trx.selectFrom("custom_fields").select("id").where("id", "in", ids).execute();
  const existing = new Set(known.map((row) => String(row.id)));
  const errors: Record<string, string[]> = Object.fromEntries(
    strangers.map((key) => [`default_values.${key}`, [existing.has(key) ? NOT_ON_FIELDSET : NO_SUCH_FIELD]]),
  );
  const rows: { asset_model_id: number; custom_field_id: number; default_value: string }[] = [];
  for (const [key, field] of fields) {
    if (!Object.hasOwn(sent, key)) continue;
    const checked = checkValue(field, sent[key]);
    if ("error" in checked) errors[String(field.db_column)] = [checked.error];
    else if (checked.value !== null)
      rows.push({ asset_model_id: model.id, custom_field_id: Number(key), default_value: checked.value });
  }
  if (Object.keys(errors).length > 0) throw new Invalid(INVALID, errors);
  if (rows.length > 0) await trx.insertInto("models_custom_fields").values(rows).execute();
}

/**
 * The model object's default_fieldset_values (spec §8): every field of its fieldset, in order, with
 * the model's default value or null.
 */
export async function defaultFieldsetValues(db: AnyKysely, model: Row): Promise<Record<string, unknown>[]> {
  if (model.fieldset_id === null || model.fieldset_id === undefined) return [];
  const fieldsetId = Number(model.fieldset_id);
  const [fieldsets, defaults] = await Promise.all([
    fieldsOfFieldsets(db, [fieldsetId]),
    modelDefaults(db, model.id),
  ]);
  return (fieldsets.get(fieldsetId) ?? []).map(({ field, required }) => ({
    name: escaped(String(field.name)),
    db_column_name: escaped(String(field.db_column)),
    default_value: escaped(defaults.get(Number(field.id)) ?? null),
    format: escaped(formatName(field.format)),
    required,
  }));
}

/** Whether an asset update sends encrypted values the caller may not write (they are left as they are). */
export async function skipsEncrypted(
  db: AnyKysely,
  caller: Caller,
  modelId: unknown,
  input: Readonly<Record<string, unknown>>,
): Promise<boolean> {
  if (can(caller, ENCRYPTED_PERMISSION) || !Object.keys(input).some(isCustomColumn)) return false;
  const fields = await fieldsOfModel(db, modelId);
  return fields.some(({ field }) => flag(field, "field_encrypted") && String(field.db_column) in input);
}

/**
 * Every custom field's column of an asset as stored (`_snipeit_*`: the value or null; encrypted
 * ones as ciphertext), for the raw-row payloads of asset writes.
 */
export async function storedColumns(db: AnyKysely, assetId: number): Promise<Record<string, string | null>> {
  const rows = await db
    .selectFrom("custom_fields")
    .leftJoin("asset_custom_values", (join) =>
      join
        .onRef("asset_custom_values.custom_field_id", "=", "custom_fields.id")
        .on("asset_custom_values.asset_id", "=", assetId),
    )
    .select(["custom_fields.db_column", "asset_custom_values.value"])
    .orderBy("custom_fields.id")
    .execute();
  return Object.fromEntries(rows.map((row) => [String(row.db_column), (row.value as string | null) ?? null]));
}

/** A value as the asset object shows it (spec §7.3): dates formatted, encrypted ones hidden unless allowed. */
function shownValue(
  field: Row,
  stored: string | undefined,
  cipher: SecretCipher | undefined,
  caller: Caller,
) {
  if (stored === undefined || stored === "") return "";
  let plain: string = stored;
  if (flag(field, "field_encrypted")) {
    if (!can(caller, ENCRYPTED_PERMISSION)) return ENCRYPTED;
    plain = cipher?.decrypt(stored) ?? "";
  }
  if (String(field.format) === "date" && plain !== "") return date(plain)?.formatted ?? plain;
  return plain;
}

/**
 * The `custom_fields` object of each asset of a page, keyed by field name in fieldset order (`{}`
 * when its model has no fieldset): two queries for the whole page.
 */
export async function customFieldsOf(
  db: AnyKysely,
  caller: Caller,
  assets: readonly Row[],
  fieldsetOfModel: (modelId: number) => number | null,
): Promise<Map<number, Record<string, unknown>>> {
  const shown = new Map<number, Record<string, unknown>>();
  const withFieldset = assets.filter((asset) => fieldsetOfModel(Number(asset.model_id)) !== null);
  if (withFieldset.length === 0) return shown;
  const fieldsets = await fieldsOfFieldsets(
    db,
    withFieldset.map((asset) => fieldsetOfModel(Number(asset.model_id)) as number),
  );
  const fieldIds = [...new Set([...fieldsets.values()].flat().map(({ field }) => Number(field.id)))];
  const values = new Map<string, string>();
  if (fieldIds.length > 0) {
    const rows = await keptRows(
      db,
      db
        .selectFrom("asset_custom_values")
        .select(["asset_id", "custom_field_id", "value"])
        .where("asset_id", "in", [...new Set(withFieldset.map((asset) => asset.id))])
        .where("custom_field_id", "in", fieldIds),
    );
    for (const row of rows) values.set(`${row.asset_id}:${row.custom_field_id}`, String(row.value));
  }
  const cipher = [...fieldsets.values()].flat().some(({ field }) => flag(field, "field_encrypted"))
    ? await secretCipher(db, CUSTOM_FIELDS_KEY)
    : undefined;
  for (const asset of withFieldset) {
    const object: Record<string, unknown> = {};
    for (const { field } of fieldsets.get(fieldsetOfModel(Number(asset.model_id)) as number) ?? [])
      object[String(field.name)] = {
        field: escaped(String(field.db_column)),
        value: escaped(shownValue(field, values.get(`${asset.id}:${field.id}`), cipher, caller)),
        field_format: formatName(field.format),
        element: field.element,
      };
    shown.set(asset.id, object);
  }
  return shown;
}

/**
 * What the hardware list needs of custom fields (spec §4, §7.2): `_snipeit_*=<value>` filters, sorts
 * on custom columns (optionally prefixed `custom_fields.`; NUMERIC ones by number), and the
 * `filter` JSON's custom columns. Fields are read only when the query names a custom column.
 */
export interface CustomFieldListing {
  sorts: string[];
  sortExpression(sort: string): Expression<unknown> | undefined;
  /** The value of a column, to match `filter` text against; undefined for unknown columns. */
  columnValue(column: string): Expression<unknown> | undefined;
  refine(select: AnySelect): AnySelect;
}

/** `(select value from asset_custom_values where the asset and field)`: one asset's value of a field. */
function valueExpression(fieldId: number): Expression<unknown> {
  return sql`(select custom_value.value from asset_custom_values as custom_value where custom_value.asset_id = assets.id and custom_value.custom_field_id = ${fieldId})`;
}

/** A text as a number where it is one; PostgreSQL's cast would fail on the others, so they are null. */
function asNumber(dialect: DialectName, text: Expression<unknown>): Expression<unknown> {
  return dialect === "sqlite"
    ? sql`cast(${text} as real)`
    : sql`(case when ${text} ~ ${NUMERIC.source} then cast(${text} as numeric) end)`;
}

export async function customFieldListing(
  db: AnyKysely,
  dialect: DialectName,
  query: Record<string, unknown>,
): Promise<CustomFieldListing> {
  const sort = typeof query.sort === "string" ? query.sort.replace(/^custom_fields\./, "") : "";
  const named =
    isCustomColumn(sort) ||
    Object.keys(query).some(isCustomColumn) ||
    (typeof query.filter === "string" && query.filter.includes("_snipeit_"));
  const fields = named
    ? await db
        .selectFrom("custom_fields")
        .select(["id", "db_column", "format", "field_encrypted"])
        .orderBy("id")
        .execute()
    : [];
  const byColumn = new Map(fields.map((field) => [String(field.db_column), field]));
  const fieldOf = (key: string) => byColumn.get(key.replace(/^custom_fields\./, ""));
  return {
    sorts: fields.flatMap((field) => [String(field.db_column), `custom_fields.${field.db_column}`]),
    sortExpression: (key) => {
      const field = fieldOf(key);
      if (!field) return undefined;
      const value = valueExpression(Number(field.id));
      return field.format === "numeric" ? asNumber(dialect, value) : value;
    },
    columnValue: (column) => {
      const field = fieldOf(column);
      if (!field) return undefined;
      // Ciphertext is no text to look for words in: an encrypted column matches no filter.
      return flag(field as Row, "field_encrypted") ? sql`null` : valueExpression(Number(field.id));
    },
    refine: (select) => {
      let refined = select;
      for (const [column, field] of byColumn) {
        const wanted = query[column];
        if (typeof wanted !== "string" || wanted === "") continue;
        refined = refined.where("assets.id", "in", (eb: AnyExpressionBuilder) =>
          eb
            .selectFrom("asset_custom_values")
            .select("asset_id")
            .where("custom_field_id", "=", field.id)
            .where("value", "=", wanted),
        );
      }
      return refined;
    },
  };
}

/** Search (spec §4): the ids of the assets a custom value of which, encrypted ones aside, contains the term. */
export function customValueAssets(dialect: DialectName, term: string): Expression<unknown> {
  return sql`select custom_value.asset_id from asset_custom_values as custom_value join custom_fields as field on field.id = custom_value.custom_field_id where not field.field_encrypted and ${containsText(dialect, sql.ref("custom_value.value"), term)}`;
}
