import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { AnyKysely } from "@anvil/core";
import { datetime, escaped, isoTimestamp } from "../convert/format.ts";
import { listRecords } from "../repositories/records.ts";
import { readSettings, type SettingsRow, writeSettings } from "../repositories/settings.ts";
import { changedFields, logAction, type RequestOrigin } from "./activity.ts";
import { type InventoryDatabase, storedNow } from "./database.ts";
import { ONE_D_TYPES, TWO_D_TYPES } from "./label-codes.ts";
import { LABEL_TEMPLATES } from "./labels.ts";
import { listParams, MAX_RESULTS } from "./listing.ts";
import type { Caller } from "./permissions.ts";
import { validate } from "./validation.ts";

// Snipe-IT's settings (superusers only, spec §23): one row, read and changed through the API, and
// the two lists beside it, the web sign-ins and the backup files.

export const SETTINGS_UPDATED = "Settings updated successfully.";

/** Settings that take one of a few values, each in its canonical spelling. */
const CHOICES: Readonly<Record<string, readonly string[]>> = {
  label2_template: LABEL_TEMPLATES.map((template) => template.name),
  label2_1d_type: ["default", "none", ...ONE_D_TYPES],
  label2_2d_type: ["default", "none", ...TWO_D_TYPES],
  barcode_type: TWO_D_TYPES,
  alt_barcode: ONE_D_TYPES,
  webhook_selected: ["slack", "msteams", "general"],
};

// The `in` rule compares in lower case, so the lists are given to it so.
const oneOf = (field: string) => `string|in:${CHOICES[field].map((value) => value.toLowerCase()).join(",")}`;

const RULES = {
  site_name: "string|min:1|max:191",
  default_currency: "string|min:1|max:10",
  label2_template: oneOf("label2_template"),
  label2_title: "nullable|string|max:191",
  label2_1d_type: oneOf("label2_1d_type"),
  label2_2d_type: oneOf("label2_2d_type"),
  qr_code: "boolean",
  barcode_type: oneOf("barcode_type"),
  alt_barcode_enabled: "boolean",
  alt_barcode: oneOf("alt_barcode"),
  webhook_selected: oneOf("webhook_selected"),
  webhook_endpoint: "nullable|url|max:255",
  webhook_channel: "nullable|string|max:191",
  webhook_botname: "nullable|string|max:191",
};

const FLAGS = new Set(["qr_code", "alt_barcode_enabled"]);

/** A validated value as stored: flags as 1/0, choices in their canonical spelling. */
function stored(field: string, value: unknown): unknown {
  if (FLAGS.has(field)) return value ? 1 : 0;
  const choices = CHOICES[field];
  return choices ? choices.find((choice) => choice.toLowerCase() === String(value).toLowerCase()) : value;
}

/** The settings row as Snipe-IT serializes its Setting model: flat columns, ISO timestamps. */
export function presentSettings(row: SettingsRow) {
  return {
    ...row,
    qr_code: Number(row.qr_code),
    alt_barcode_enabled: Number(row.alt_barcode_enabled),
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

export function getSettings(database: InventoryDatabase): Promise<SettingsRow> {
  return readSettings(database.db);
}

/** Changes the settings the input names (validated as a whole first) and logs what changed. */
export async function updateSettings(
  database: InventoryDatabase,
  caller: Caller,
  origin: RequestOrigin,
  input: Record<string, unknown>,
): Promise<SettingsRow> {
  const values = await validate(database.db as AnyKysely, input, RULES);
  const changes = Object.fromEntries(
    Object.entries(values).map(([field, value]) => [field, stored(field, value)]),
  );
  return database.db.transaction().execute(async (trx) => {
    const before = await readSettings(trx);
    if (Object.keys(changes).length === 0) return before;
    const after = await writeSettings(trx, before.id, {
      ...changes,
      updated_at: storedNow(database.dialect),
    });
    await logAction(trx, database.dialect, {
      createdBy: caller.user.id,
      actionType: "update",
      item: { type: "setting", id: before.id },
      meta: changedFields(before, changes),
      origin,
    });
    return after;
  });
}

/** Web sign-ins, newest first unless asked otherwise (Snipe-IT's default page: 20). */
export async function listLoginAttempts(database: InventoryDatabase, query: Record<string, unknown>) {
  const params = listParams(
    { ...query, limit: query.limit ?? 20 },
    {
      allowed: ["id", "username", "remote_ip", "user_agent", "successful", "created_at"],
      default: "created_at",
    },
  );
  const page = await listRecords(
    database.db as AnyKysely,
    database.dialect,
    { table: "login_attempts", softDeletes: false, trashed: "with", searchColumns: [], filters: {} },
    params,
  );
  return {
    params,
    total: page.total,
    rows: page.rows.map((row) => ({
      id: row.id,
      username: escaped(row.username as string),
      remote_ip: escaped(row.remote_ip as string | null),
      user_agent: escaped(row.user_agent as string | null),
      successful: Number(row.successful) === 1,
      created_at: datetime(row.created_at as string | Date),
    })),
  };
}

const SIZE_UNITS: readonly [string, number][] = [
  ["TB", 1024 ** 4],
  ["GB", 1024 ** 3],
  ["MB", 1024 ** 2],
  ["KB", 1024],
  ["B", 1],
];

/** A size as Snipe-IT's fileSizeConvert words it: "1.5 MB". */
function fileSize(bytes: number): string {
  const [unit, value] = SIZE_UNITS.find(([, size]) => bytes >= size) ?? ["B", 1];
  return `${Math.round((bytes / value) * 100) / 100} ${unit}`;
}

/**
 * The backup files under the data directory, newest first; dot files are not backups. Making
 * backups is not the API's business here: the files are the SQLite copies taken before imports.
 */
export async function listBackups(directory: string) {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { total: 0, rows: [] };
    throw error;
  }
  const files = [];
  for (const name of names) {
    if (name.startsWith(".")) continue;
    const info = await stat(join(directory, name));
    if (info.isFile()) files.push({ name, size: info.size, modified: info.mtime });
  }
  files.sort((a, b) => b.modified.getTime() - a.modified.getTime() || b.name.localeCompare(a.name));
  return {
    total: files.length,
    rows: files.slice(0, MAX_RESULTS).map((file) => ({
      filename: file.name,
      filesize: fileSize(file.size),
      modified_value: Math.floor(file.modified.getTime() / 1000),
      modified_display: datetime(file.modified)?.formatted ?? null,
    })),
  };
}
