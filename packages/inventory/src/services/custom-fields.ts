import {
  type AnyKysely,
  Conflict,
  Invalid,
  isForeignKeyViolation,
  isUniqueViolation,
  NotFound,
  readBool,
} from "@anvil/core";
import isSafeRegex from "safe-regex2";
import { insertRecord, type Row, updateRecord } from "../repositories/records.ts";
import { type InventoryDatabase, storedNow } from "./database.ts";
import type { Caller } from "./permissions.ts";
import { validate } from "./validation.ts";

// Custom fields and fieldsets (spec §20): a field is a named, formatted value assets may carry,
// known to the API by its column name `_snipeit_<slug>_<id>`; a fieldset is an ordered list of
// fields, each required or not, and a model points at one fieldset. The values themselves are in
// services/custom-values.ts.

/** Snipe-IT's named formats and the Laravel rule stored for each; ANY and CUSTOM REGEX check nothing. */
export const PREDEFINED_FORMATS: Readonly<Record<string, string>> = {
  ANY: "",
  "CUSTOM REGEX": "",
  ALPHA: "alpha",
  "ALPHA-DASH": "alpha_dash",
  NUMERIC: "numeric",
  "ALPHA-NUMERIC": "alpha_num",
  EMAIL: "email",
  DATE: "date",
  URL: "url",
  IP: "ip",
  IPV4: "ipv4",
  IPV6: "ipv6",
  MAC: "regex:/^[a-fA-F0-9]{2}:[a-fA-F0-9]{2}:[a-fA-F0-9]{2}:[a-fA-F0-9]{2}:[a-fA-F0-9]{2}:[a-fA-F0-9]{2}$/",
  BOOLEAN: "boolean",
};

export const FIELD_MESSAGES = {
  /** Routes that bind the field by id (Laravel's findOrFail). */
  notFound: "CustomField not found",
  /** GET /fields/{id}, which looks the field up itself. */
  invalid: "That field does not exist.",
  create: "Field created successfully.",
  update: "Field updated successfully.",
  delete: "The field was deleted successfully.",
  inUse: "Field is in use.",
} as const;

export const FIELDSET_MESSAGES = {
  notFound: "CustomFieldset not found",
  doesNotExist: "Fieldset does not exist",
  create: "Fieldset created successfully.",
  update: "Fieldset updated successfully.",
  delete: "The fieldset was deleted successfully.",
  inUse: "Fieldset is in use.",
} as const;

const FLAGS = [
  "show_in_email",
  "is_unique",
  "display_in_user_view",
  "auto_add_to_fieldsets",
  "show_in_listview",
  "display_checkout",
  "display_checkin",
  "display_audit",
  "show_in_requestable_list",
] as const;

const FIELD_RULES = {
  name: "required|string|max:255",
  element: "required|string|in:text,listbox,textarea,checkbox,radio",
  format: "nullable|string",
  custom_format: "nullable|string",
  field_values: "nullable|string|max:65535",
  field_encrypted: "nullable|boolean",
  help_text: "nullable|string|max:65535",
  ...Object.fromEntries(FLAGS.map((flag) => [flag, "nullable|boolean"])),
};

const FIELDSET_RULES = { name: "required|string|max:255" };
const INVALID = "The given data was invalid.";
/** Laravel's plain `unique` rule, as both names are checked. */
const NAME_TAKEN = { name: ["The name has already been taken."] };
const BAD_FORMAT = "The selected format is invalid.";

/** A field's `format` as the API shows it: the format's name, or the custom `regex:` rule itself. */
export function formatName(stored: unknown): string {
  const rule = String(stored ?? "");
  for (const [name, pattern] of Object.entries(PREDEFINED_FORMATS)) if (pattern === rule) return name;
  return rule;
}

const CLOSING_DELIMITERS: Record<string, string> = { "(": ")", "[": "]", "{": "}", "<": ">" };
// The PCRE modifiers JavaScript also has; a pattern using others is refused rather than half-honoured.
const MODIFIERS = new Set(["i", "m", "s", "u"]);

/**
 * The expression of a Laravel `regex:/…/flags` rule; undefined when JavaScript cannot run it, or
 * when it nests repetitions (`(a+)+`): V8 backtracks, and such a pattern would take hours on a
 * value crafted for it, so a field may not have one (Snipe-IT takes any), and a stored one refuses
 * every value rather than stall the process.
 */
export function regexOf(rule: string): RegExp | undefined {
  if (!rule.startsWith("regex:")) return undefined;
  const body = rule.slice("regex:".length);
  const open = body[0];
  if (open === undefined || /[\sa-zA-Z0-9\\]/.test(open)) return undefined;
  const end = body.lastIndexOf(CLOSING_DELIMITERS[open] ?? open);
  if (end < 1) return undefined;
  const flags = body.slice(end + 1);
  if ([...flags].some((flag) => !MODIFIERS.has(flag)) || new Set(flags).size !== flags.length)
    return undefined;
  const pattern = body.slice(1, end);
  if (!isSafeRegex(pattern)) return undefined;
  try {
    return new RegExp(pattern, flags);
  } catch {
    return undefined;
  }
}

/** The rule a format given by a client is stored as; undefined when it names none. */
function storedFormat(given: string): string | undefined {
  if (Object.hasOwn(PREDEFINED_FORMATS, given)) return PREDEFINED_FORMATS[given];
  if (Object.values(PREDEFINED_FORMATS).includes(given) && !given.startsWith("regex:")) return given;
  return regexOf(given) ? given : undefined;
}

/**
 * The column name of a field (Snipe-IT's db_column): `_snipeit_`, the name lower-cased in ASCII
 * with every run of other characters made one `_`, cut at 50 characters, then `_<id>`.
 */
export function dbColumnName(name: string, id: number): string {
  const slug = name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");
  return `${`_snipeit_${slug}`.slice(0, 50)}_${id}`;
}

/** Whether a request key names a custom field's column. */
export function isCustomColumn(key: string): boolean {
  return key.startsWith("_snipeit_");
}

/** A boolean column of a field row (1/0 on SQLite). */
export function flag(field: Row, column: string): boolean {
  const value = field[column];
  return value !== null && value !== undefined && readBool(value as boolean | number);
}

function optionalId(value: unknown): number | undefined {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}

async function rowById(db: AnyKysely, table: string, id: number, message: string): Promise<Row> {
  const row = Number.isSafeInteger(id)
    ? ((await db.selectFrom(table).selectAll().where("id", "=", id).executeTakeFirst()) as Row | undefined)
    : undefined;
  if (!row) throw new NotFound(message);
  return row;
}

export function findField(db: AnyKysely, id: number, message: string = FIELD_MESSAGES.notFound) {
  return rowById(db, "custom_fields", id, message);
}

export function findFieldset(db: AnyKysely, id: number, message: string = FIELDSET_MESSAGES.notFound) {
  return rowById(db, "custom_fieldsets", id, message);
}

export async function listFields(db: AnyKysely): Promise<Row[]> {
  return (await db.selectFrom("custom_fields").selectAll().orderBy("id").execute()) as Row[];
}

export async function listFieldsets(db: AnyKysely): Promise<Row[]> {
  return (await db.selectFrom("custom_fieldsets").selectAll().orderBy("id").execute()) as Row[];
}

/** A field as a fieldset holds it: the field's row, whether assets must give it, its place. */
export interface FieldsetField {
  field: Row;
  required: boolean;
  order: number;
}

/** The fields of each fieldset, in the fieldset's order. */
export async function fieldsOfFieldsets(
  db: AnyKysely,
  fieldsetIds: readonly number[],
): Promise<Map<number, FieldsetField[]>> {
  const fieldsets = new Map<number, FieldsetField[]>(fieldsetIds.map((id) => [id, []]));
  if (fieldsetIds.length === 0) return fieldsets;
  const rows = await db
    .selectFrom("custom_field_custom_fieldset as pivot")
    .innerJoin("custom_fields", "custom_fields.id", "pivot.custom_field_id")
    .selectAll("custom_fields")
    .select([
      "pivot.custom_fieldset_id as pivot_fieldset_id",
      "pivot.required as pivot_required",
      "pivot.order as pivot_order",
    ])
    .where("pivot.custom_fieldset_id", "in", [...new Set(fieldsetIds)])
    .orderBy("pivot.order")
    .orderBy("custom_fields.id")
    .execute();
  for (const { pivot_fieldset_id, pivot_required, pivot_order, ...field } of rows) {
    fieldsets.get(Number(pivot_fieldset_id))?.push({
      field: field as Row,
      required: readBool(pivot_required as boolean | number),
      order: Number(pivot_order),
    });
  }
  return fieldsets;
}

/** The undeleted models of each fieldset, as `{id, name}`. */
export async function modelsOfFieldsets(
  db: AnyKysely,
  fieldsetIds: readonly number[],
): Promise<Map<number, { id: number; name: string }[]>> {
  const models = new Map<number, { id: number; name: string }[]>(fieldsetIds.map((id) => [id, []]));
  if (fieldsetIds.length === 0) return models;
  const rows = await db
    .selectFrom("models")
    .select(["id", "name", "fieldset_id"])
    .where("fieldset_id", "in", [...new Set(fieldsetIds)])
    .where("deleted_at", "is", null)
    .orderBy("id")
    .execute();
  for (const row of rows)
    models.get(Number(row.fieldset_id))?.push({ id: Number(row.id), name: String(row.name) });
  return models;
}

/** Runs a write in one transaction; a name another field (or fieldset) has is Laravel's `unique` answer. */
async function write<T>(database: InventoryDatabase, work: (trx: AnyKysely) => Promise<T>): Promise<T> {
  try {
    return await (database.db as AnyKysely).transaction().execute(work);
  } catch (error) {
    if (isUniqueViolation(error)) throw new Invalid(INVALID, NAME_TAKEN);
    throw error;
  }
}

/** The field body validated, and the format rule it asks for (undefined: none asked for). */
async function checkedField(
  trx: AnyKysely,
  input: Record<string, unknown>,
): Promise<{ values: Record<string, unknown>; format: string | undefined }> {
  let values: Record<string, unknown> = {};
  let errors: Record<string, string[]> = {};
  try {
    values = await validate(trx, input, FIELD_RULES);
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    errors = { ...error.details };
  }
  // A custom format, when given, is the format (Snipe-IT's custom_format field).
  const source =
    typeof input.custom_format === "string" && input.custom_format !== "" ? "custom_format" : "format";
  let format: string | undefined;
  if (source in input && errors[source] === undefined) {
    const given = input[source];
    format = typeof given === "string" && given !== "" ? storedFormat(given) : "";
    if (format === undefined) errors[source] = [BAD_FORMAT];
  }
  if (Object.keys(errors).length > 0) throw new Invalid(INVALID, errors);
  return { values, format };
}

/** The columns a validated field body sets. */
function fieldColumns(values: Record<string, unknown>): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  for (const column of ["name", "field_values", "help_text"])
    if (column in values) columns[column] = values[column];
  if (typeof values.element === "string") columns.element = values.element.toLowerCase();
  for (const column of FLAGS) if (column in values) columns[column] = values[column] === true;
  return columns;
}

export async function createField(
  database: InventoryDatabase,
  caller: Caller,
  input: Record<string, unknown>,
): Promise<Row> {
  return write(database, async (trx) => {
    const { values, format } = await checkedField(trx, input);
    const now = storedNow(database.dialect);
    const row = await insertRecord(trx, "custom_fields", {
      ...fieldColumns(values),
      format: format ?? "",
      field_encrypted: values.field_encrypted === true,
      created_by: caller.user.id,
      created_at: now,
      updated_at: now,
    });
    return updateRecord(trx, "custom_fields", row.id, { db_column: dbColumnName(String(row.name), row.id) });
  });
}

/** A partial update; whether the field is encrypted never changes, and a new name is a new column name. */
export async function updateField(
  database: InventoryDatabase,
  id: number,
  input: Record<string, unknown>,
): Promise<Row> {
  return write(database, async (trx) => {
    const before = await findField(trx, id);
    const { field_encrypted: _fixed, ...sent } = input;
    // Validated as it would be saved: what is stored, overlaid with what is sent.
    const { values, format } = await checkedField(trx, {
      name: before.name,
      element: before.element,
      ...sent,
    });
    const changes = fieldColumns(Object.fromEntries(Object.entries(values).filter(([key]) => key in sent)));
    if (format !== undefined) changes.format = format;
    if (changes.name !== undefined && changes.name !== before.name)
      changes.db_column = dbColumnName(String(changes.name), id);
    return updateRecord(trx, "custom_fields", id, { ...changes, updated_at: storedNow(database.dialect) });
  });
}

/** Runs a delete in one transaction; a row that came into use meanwhile (a foreign key refuses) is `inUse`. */
async function deleteUnlessUsed(
  database: InventoryDatabase,
  inUse: string,
  work: (trx: AnyKysely) => Promise<void>,
): Promise<void> {
  try {
    await (database.db as AnyKysely).transaction().execute(work);
  } catch (error) {
    if (isForeignKeyViolation(error)) throw new Conflict(inUse);
    throw error;
  }
}

/** Deletes a field that no fieldset has, with every value and default of it. */
export async function deleteField(database: InventoryDatabase, id: number): Promise<void> {
  await deleteUnlessUsed(database, FIELD_MESSAGES.inUse, async (trx) => {
    await findField(trx, id);
    const used = await trx
      .selectFrom("custom_field_custom_fieldset")
      .select("custom_field_id")
      .where("custom_field_id", "=", id)
      .executeTakeFirst();
    if (used) throw new Conflict(FIELD_MESSAGES.inUse);
    await trx.deleteFrom("asset_custom_values").where("custom_field_id", "=", id).execute();
    await trx.deleteFrom("models_custom_fields").where("custom_field_id", "=", id).execute();
    await trx.deleteFrom("custom_fields").where("id", "=", id).execute();
  });
}

/** A new fieldset; the fields flagged auto_add_to_fieldsets join it at once. */
export async function createFieldset(
  database: InventoryDatabase,
  caller: Caller,
  input: Record<string, unknown>,
): Promise<Row> {
  return write(database, async (trx) => {
    const values = await validate(trx, input, FIELDSET_RULES);
    const now = storedNow(database.dialect);
    const row = await insertRecord(trx, "custom_fieldsets", {
      name: values.name,
      created_by: caller.user.id,
      created_at: now,
      updated_at: now,
    });
    const automatic = await trx
      .selectFrom("custom_fields")
      .select("id")
      .where("auto_add_to_fieldsets", "=", true)
      .orderBy("id")
      .execute();
    if (automatic.length > 0)
      await trx
        .insertInto("custom_field_custom_fieldset")
        .values(
          automatic.map((field, order) => ({
            custom_field_id: field.id,
            custom_fieldset_id: row.id,
            order,
            required: false,
          })),
        )
        .execute();
    return row;
  });
}

export async function updateFieldset(
  database: InventoryDatabase,
  id: number,
  input: Record<string, unknown>,
): Promise<Row> {
  return write(database, async (trx) => {
    const before = await findFieldset(trx, id);
    const values = await validate(trx, { name: before.name, ...input }, FIELDSET_RULES);
    return updateRecord(trx, "custom_fieldsets", id, {
      name: values.name,
      updated_at: storedNow(database.dialect),
    });
  });
}

/** Deletes a fieldset that has neither fields nor (undeleted) models. */
export async function deleteFieldset(database: InventoryDatabase, id: number): Promise<void> {
  await deleteUnlessUsed(database, FIELDSET_MESSAGES.inUse, async (trx) => {
    await findFieldset(trx, id);
    const [fields, models] = await Promise.all([fieldsOfFieldsets(trx, [id]), modelsOfFieldsets(trx, [id])]);
    if ((fields.get(id) ?? []).length > 0 || (models.get(id) ?? []).length > 0)
      throw new Conflict(FIELDSET_MESSAGES.inUse);
    // Deleted models may still point at it; they lose the fieldset with it.
    await trx.updateTable("models").set({ fieldset_id: null }).where("fieldset_id", "=", id).execute();
    await trx.deleteFrom("custom_fieldsets").where("id", "=", id).execute();
  });
}

/** Adds a field to a fieldset (last unless `order` says), required when `required` is "on"; answers the fieldset. */
export async function associateField(
  database: InventoryDatabase,
  fieldId: number,
  input: Record<string, unknown>,
): Promise<Row> {
  return (database.db as AnyKysely).transaction().execute(async (trx) => {
    await findField(trx, fieldId);
    const fieldsetId = optionalId(input.fieldset_id);
    const fieldset = await findFieldset(trx, fieldsetId ?? Number.NaN);
    const values = await validate(trx, input, { order: "nullable|integer" });
    const held = await trx
      .selectFrom("custom_field_custom_fieldset")
      .select("custom_field_id")
      .where("custom_fieldset_id", "=", fieldset.id)
      .execute();
    if (held.some((row) => Number(row.custom_field_id) === fieldId)) return fieldset;
    await trx
      .insertInto("custom_field_custom_fieldset")
      .values({
        custom_field_id: fieldId,
        custom_fieldset_id: fieldset.id,
        order: typeof values.order === "number" ? values.order : held.length,
        // A form's checkbox sends "on"; JSON clients send true.
        required: ["on", "1", "true", true, 1].includes(input.required as string),
      })
      // Two requests adding the same field: the second finds it added.
      .onConflict((conflict) => conflict.columns(["custom_fieldset_id", "custom_field_id"]).doNothing())
      .execute();
    return fieldset;
  });
}

/** Removes a field from a fieldset (nothing to do when it is not there); answers the fieldset. */
export async function disassociateField(
  database: InventoryDatabase,
  fieldId: number,
  input: Record<string, unknown>,
): Promise<Row> {
  return (database.db as AnyKysely).transaction().execute(async (trx) => {
    await findField(trx, fieldId);
    const fieldset = await findFieldset(trx, optionalId(input.fieldset_id) ?? Number.NaN);
    await trx
      .deleteFrom("custom_field_custom_fieldset")
      .where("custom_field_id", "=", fieldId)
      .where("custom_fieldset_id", "=", fieldset.id)
      .execute();
    return fieldset;
  });
}

/**
 * Puts a fieldset's fields in the order of `item` (field ids); fields it does not name keep their
 * place. Answers as Laravel's sync does: which fields were attached, detached and updated.
 */
export async function reorderFieldset(
  database: InventoryDatabase,
  fieldsetId: number,
  input: Record<string, unknown>,
): Promise<{ attached: number[]; detached: number[]; updated: number[] }> {
  return (database.db as AnyKysely).transaction().execute(async (trx) => {
    await findFieldset(trx, fieldsetId, FIELDSET_MESSAGES.doesNotExist);
    const { item } = await validate(trx, input, { item: "required|array" });
    const places = new Map<number, number>();
    (item as unknown[]).forEach((id, place) => {
      const field = optionalId(id);
      if (field !== undefined) places.set(field, place);
    });
    const updated: number[] = [];
    for (const { field, order } of (await fieldsOfFieldsets(trx, [fieldsetId])).get(fieldsetId) ?? []) {
      const id = Number(field.id);
      const place = places.get(id);
      if (place === undefined || place === order) continue;
      await trx
        .updateTable("custom_field_custom_fieldset")
        .set({ order: place })
        .where("custom_fieldset_id", "=", fieldsetId)
        .where("custom_field_id", "=", id)
        .execute();
      updated.push(id);
    }
    return { attached: [], detached: [], updated };
  });
}
