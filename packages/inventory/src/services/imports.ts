import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type AnyKysely, Conflict, DomainError, Invalid, type Logger, type SavedUpload } from "@anvil/core";
import { CsvError, parse } from "csv-parse";
import { sql } from "kysely";
import { datetime, escaped, forHumans } from "../convert/format.ts";
import type { Row } from "../repositories/records.ts";
import type { RequestOrigin } from "./activity.ts";
import { type BulkWork, inSavepoint } from "./bulk.ts";
import { type InventoryDatabase, storedNow } from "./database.ts";
import { IMPORTERS, type ImportRow, WritesMore } from "./importers.ts";
import { type Caller, isSuperuser } from "./permissions.ts";
import {
  changesNothing,
  createPlannedWithin,
  createWithin,
  duplicateAsInvalid,
  type PlannedCreate,
  planCreate,
  planUpdate,
  updateChangedWithin,
  type WriteContext,
} from "./resource.ts";
import { discard, extensionOf, generatedName, keep, type Storage, storedPath } from "./storage.ts";

// CSV imports (spec §21): an upload is checked (a CSV, UTF-8 or transliterated to it, distinct
// headers, readable to its end, its rows counted) and kept under a generated name; processing
// reads it again as a stream and writes each row through its resource's own create or update.
// Rows are written BATCH_ROWS to a transaction, each in a savepoint of its own (services/bulk.ts):
// a row that fails leaves nothing behind, not even the category it would have created, and the
// rows before and after it stand (as Snipe-IT's importer keeps the good rows). Each batch's
// transaction also records the import's progress and the rows that failed, so that what
// GET /imports/{id} shows while it runs is always what is committed.
//
// Most rows of a large file are plain: a new record naming records that exist, or one that
// repeats what is stored. Where the importer can (importers.ts, `bulk`), a batch first reads what
// its rows name with one query a table, then plans each row through the same create or update,
// its rules reading those rows instead of the database, and writes the plain creates together:
// one INSERT for the records that name the same columns, one for their activity entries. A row that would write anything
// else (a record it names, a holder, a changed field), fails, or shares its asset tag with an
// earlier row of the batch runs alone in its savepoint as before, once the creates planned before
// it are written, so every row sees what the rows before it did. When the joint INSERT is refused
// (another transaction took a tag since the batch read them), its rows run alone too.

/** Snipe-IT's accepted CSV types; a client extension of csv, tsv or txt also passes. */
const CSV_TYPES = new Set([
  "application/vnd.ms-excel",
  "text/csv",
  "application/csv",
  "text/x-algol68",
  "text/plain",
  "text/comma-separated-values",
  "text/tsv",
]);
const CSV_EXTENSIONS = new Set(["csv", "tsv", "txt"]);
/** The longest record taken: a quote that never closes must not pull the whole file into memory. */
const MAX_RECORD_BYTES = 1024 * 1024;
/** Row errors kept for the answer and stored; a file of a million bad rows reports the first ones and counts the rest. */
export const MAX_REPORTED_ROWS = 1000;
/** Rows written in one transaction: one commit for many rows, yet a short hold of SQLite's write lock. */
export const BATCH_ROWS = 500;
/**
 * An import whose progress has not moved for this long is taken as stopped (its process ended
 * mid-way) and may be processed again; a running one writes its progress after every batch.
 */
const STALE_MS = 10 * 60 * 1000;
/** Turns of the event loop left to other work between two batches. */
const YIELDED_TURNS = 8;

export const IMPORT_TYPES = Object.keys(IMPORTERS);

export const IMPORT_MESSAGES = {
  noFiles: "You did not select any files for upload, or the file you are trying to upload is too large",
  deleted: "Your file has been been successfully deleted",
  notDeleted: "The file was unable to be deleted",
  missingFile: "The selected file is invalid.",
  notFound: "Import not found.",
  busy: "This import is already being processed.",
} as const;

/** A refusal of an upload, which Snipe-IT answers with HTTP 422 and the envelope (spec §3). */
export class UploadRefused extends Error {}

function csvParser() {
  return parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
  });
}

async function isUtf8(path: string): Promise<boolean> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    for await (const chunk of createReadStream(path)) decoder.decode(chunk as Buffer, { stream: true });
    decoder.decode();
    return true;
  } catch {
    return false;
  }
}

/**
 * Rewrites a file that is not UTF-8 as UTF-8, reading it as Windows-1252 (what spreadsheets
 * write on Windows, and a superset of Latin-1), in a stream.
 */
async function transliterate(path: string, directory: string): Promise<string> {
  const decoder = new TextDecoder("windows-1252");
  const target = join(directory, generatedName());
  await pipeline(
    createReadStream(path),
    new Transform({
      transform(chunk, _encoding, done) {
        done(null, Buffer.from(decoder.decode(chunk as Buffer, { stream: true }), "utf8"));
      },
      flush(done) {
        done(null, Buffer.from(decoder.decode(), "utf8"));
      },
    }),
    createWriteStream(target, { flags: "wx" }),
  );
  return target;
}

/**
 * The header, first row and number of data rows of a CSV file, once the whole file has been read
 * without a fault.
 */
async function firstRecords(path: string): Promise<{ header: string[]; first: string[]; rows: number }> {
  const records: string[][] = [];
  let count = 0;
  try {
    for await (const record of createReadStream(path).pipe(csvParser())) {
      if (records.length < 2) records.push(record as string[]);
      count += 1;
    }
  } catch (error) {
    if (error instanceof CsvError)
      throw new UploadRefused(`The file is not a readable CSV file: ${error.message}`);
    throw error;
  }
  if (records.length === 0) throw new UploadRefused("The file is empty: it has no header row.");
  return { header: records[0], first: records[1] ?? [], rows: count - 1 };
}

function duplicateHeaders(header: string[]): string[] {
  return header.flatMap((name, index) => {
    const first = header.indexOf(name);
    return first < index
      ? [
          `Duplicate header '${name}' detected, first at column: ${first + 1}, repeats at column: ${index + 1}`,
        ]
      : [];
  });
}

/** What one upload is once checked: the UTF-8 file to keep and its first two records. */
async function checkUpload(upload: SavedUpload, storage: Storage, staged: string[]) {
  const type = upload.mimetype.toLowerCase();
  if (!CSV_TYPES.has(type) && !CSV_EXTENSIONS.has(extensionOf(upload.filename) ?? ""))
    throw new UploadRefused(`File type must be CSV. Uploaded file is ${upload.mimetype}`);
  let path = upload.path;
  if (!(await isUtf8(path))) {
    path = await transliterate(path, storage.incoming);
    staged.push(path);
  }
  const { header, first, rows } = await firstRecords(path);
  const duplicates = duplicateHeaders(header);
  if (duplicates.length > 0) throw new UploadRefused(duplicates.join("; "));
  return { upload, path, header, first, rows };
}

/** Checks and keeps uploaded CSV files; all of them or, when one is refused, none. */
export async function storeImports(
  database: InventoryDatabase,
  storage: Storage,
  caller: Caller,
  uploads: readonly SavedUpload[],
): Promise<Row[]> {
  if (uploads.length === 0) throw new UploadRefused(IMPORT_MESSAGES.noFiles);
  const staged: string[] = [];
  const kept: string[] = [];
  try {
    const checked = [];
    for (const upload of uploads) checked.push(await checkUpload(upload, storage, staged));
    await mkdir(storage.imports, { recursive: true });
    const now = storedNow(database.dialect);
    const rows = [];
    for (const { upload, path, header, first, rows: total } of checked) {
      const name = generatedName("csv");
      kept.push(await keep(path, storage.imports, name));
      rows.push({
        name: upload.filename.replace(/^.*[\\/]/, "").slice(0, 255),
        file_path: name,
        filesize: upload.size,
        header_row: JSON.stringify(header),
        first_row: JSON.stringify(first),
        rows_total: total,
        created_by: caller.user.id,
        created_at: now,
        updated_at: now,
      });
    }
    return (await (database.db as AnyKysely)
      .insertInto("imports")
      .values(rows)
      .returningAll()
      .execute()) as Row[];
  } catch (error) {
    await discard(kept);
    throw error;
  } finally {
    await discard(staged);
  }
}

/** The imports a caller may see: their own, or every one for a superuser; newest first. */
export async function listImports(database: InventoryDatabase, caller: Caller): Promise<Row[]> {
  return (await (database.db as AnyKysely)
    .selectFrom("imports")
    .selectAll()
    .$if(!isSuperuser(caller), (q) => q.where("created_by", "=", caller.user.id))
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute()) as Row[];
}

/** One of the caller's imports (any, for a superuser); undefined otherwise, so others' stay unseen. */
export async function findImport(database: InventoryDatabase, caller: Caller, id: number) {
  if (!Number.isSafeInteger(id)) return undefined;
  const row = (await (database.db as AnyKysely)
    .selectFrom("imports")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst()) as Row | undefined;
  return row && (isSuperuser(caller) || Number(row.created_by) === caller.user.id) ? row : undefined;
}

/** Where an import's file is stored, when it is still there (someone may have removed it by hand). */
export async function importFile(storage: Storage, row: Row): Promise<string | undefined> {
  const path = storedPath(storage.imports, String(row.file_path));
  return (await stat(path).catch(() => undefined))?.isFile() ? path : undefined;
}

/** Removes an import and its file; false when the caller has no such import. */
export async function deleteImport(
  database: InventoryDatabase,
  storage: Storage,
  caller: Caller,
  id: number,
): Promise<boolean> {
  const row = await findImport(database, caller, id);
  if (!row) return false;
  await (database.db as AnyKysely).transaction().execute(async (trx) => {
    await trx.deleteFrom("import_errors").where("import_id", "=", row.id).execute();
    await trx.deleteFrom("imports").where("id", "=", row.id).execute();
  });
  await discard([storedPath(storage.imports, String(row.file_path))]);
  return true;
}

function sizeForHumans(bytes: number): string {
  const units: Array<[string, number]> = [
    ["TB", 1024 ** 4],
    ["GB", 1024 ** 3],
    ["MB", 1024 ** 2],
    ["KB", 1024],
  ];
  const [unit, size] = units.find(([, size]) => bytes >= size) ?? ["B", 1];
  return `${Math.round((bytes / size) * 100) / 100} ${unit}`;
}

function parsed(text: unknown): unknown {
  return typeof text === "string" ? JSON.parse(text) : null;
}

function counter(value: unknown): number {
  return Number(value ?? 0);
}

/**
 * Snipe-IT's import object (ImportsTransformer), then how far processing has got: `import_status`
 * (null before the first processing; processing, completed, or failed when an error of the server
 * stopped it), the rows of the file (`rows_total`) and, of those read so far (`rows_processed`),
 * how many made a record, updated one, found theirs already as given, or failed.
 */
export function presentImport(row: Row) {
  return {
    id: row.id,
    file_path: escaped(String(row.file_path)),
    filesize: sizeForHumans(Number(row.filesize)),
    name: escaped(String(row.name)),
    import_type: escaped((row.import_type as string | null) ?? null),
    created_at: forHumans(new Date(row.created_at as string | Date)),
    header_row: parsed(row.header_row),
    first_row: parsed(row.first_row),
    field_map: parsed(row.field_map),
    import_status: (row.import_status as string | null) ?? null,
    rows_total: row.rows_total === null || row.rows_total === undefined ? null : Number(row.rows_total),
    rows_processed: counter(row.rows_processed),
    rows_created: counter(row.rows_created),
    rows_updated: counter(row.rows_updated),
    rows_unchanged: counter(row.rows_unchanged),
    rows_failed: counter(row.rows_failed),
    started_at: datetime(row.started_at as string | Date | null),
    finished_at: datetime(row.finished_at as string | Date | null),
  };
}

/** One failed row of an import: its CSV record number (the header is 1), its name, and why. */
export interface ImportRowError {
  row: number;
  name: string | null;
  messages: Record<string, string>;
}

/** The failed rows an import stored (the first MAX_REPORTED_ROWS), in file order. */
export async function importErrors(database: InventoryDatabase, id: number): Promise<ImportRowError[]> {
  const rows = await (database.db as AnyKysely)
    .selectFrom("import_errors")
    .select(["row_number", "name", "messages"])
    .where("import_id", "=", id)
    .orderBy("row_number")
    .limit(MAX_REPORTED_ROWS)
    .execute();
  return rows.map((error) => ({
    row: Number(error.row_number),
    name: (error.name as string | null) ?? null,
    messages: JSON.parse(String(error.messages)) as Record<string, string>,
  }));
}

/** The default CSV header (lower-cased) of each field key; the key itself is also understood. */
const DEFAULT_HEADERS: Readonly<Record<string, readonly string[]>> = {
  asset_tag: ["asset tag"],
  item_name: ["item name", "name"],
  asset_model: ["model name", "model"],
  model_number: ["model number"],
  serial: ["serial number", "serial"],
  category: ["category"],
  manufacturer: ["manufacturer"],
  status: ["status"],
  location: ["location"],
  company: ["company"],
  supplier: ["supplier"],
  purchase_date: ["purchase date"],
  purchase_cost: ["purchase cost"],
  order_number: ["order number"],
  purchase_order: ["purchase order"],
  notes: ["notes"],
  warranty_months: ["warranty", "warranty months"],
  requestable: ["requestable"],
  byod: ["byod"],
  asset_eol_date: ["eol date", "asset eol date"],
  expected_checkin: ["expected checkin date"],
  next_audit_date: ["next audit date"],
  qty: ["quantity", "qty"],
  min_amt: ["minimum quantity", "min amt"],
  item_number: ["item number"],
  seats: ["seats"],
  license_name: ["licensed to name"],
  license_email: ["licensed to email"],
  expiration_date: ["expiration date"],
  termination_date: ["termination date"],
  reassignable: ["reassignable"],
  maintained: ["maintained"],
  full_name: ["full name"],
  first_name: ["first name"],
  last_name: ["last name"],
  username: ["username"],
  email: ["email"],
  employee_num: ["employee number"],
  jobtitle: ["job title"],
  phone_number: ["phone number", "phone"],
  website: ["website"],
  address: ["address"],
  address2: ["address2"],
  city: ["city"],
  state: ["state"],
  country: ["country"],
  zip: ["zip"],
  fax: ["fax"],
  currency: ["currency"],
  ldap_ou: ["ldap ou"],
  department: ["department"],
  manager_username: ["manager username"],
  parent_location: ["parent location"],
  activated: ["activated"],
  vip: ["vip"],
  remote: ["remote"],
  start_date: ["start date"],
  end_date: ["end date"],
  eol: ["eol"],
};

/** How a field is named where its default header would read badly in title case. */
const FIELD_LABELS: Readonly<Record<string, string>> = {
  byod: "BYOD",
  vip: "VIP",
  eol: "EOL",
  asset_eol_date: "EOL Date",
  ldap_ou: "LDAP OU",
  address2: "Address 2",
};

/**
 * The fields a CSV column can be mapped to, for the web importer's choice per column: each field
 * key, named as its default header in title case (`serial` is "Serial Number").
 */
export const IMPORT_FIELDS: readonly { key: string; label: string }[] = Object.entries(DEFAULT_HEADERS)
  .map(([key, headers]) => ({
    key,
    label: FIELD_LABELS[key] ?? headers[0].replace(/\b\w/g, (letter) => letter.toUpperCase()),
  }))
  .sort((a, b) => a.label.localeCompare(b.label));

/** Field keys the web UI sends under other names. */
const KEY_ALIASES: Readonly<Record<string, string>> = {
  quantity: "qty",
  phone: "phone_number",
  name: "item_name",
};

const HEADER_KEYS = new Map<string, string>(
  Object.entries(DEFAULT_HEADERS).flatMap(([key, headers]) => [
    [key, key],
    ...headers.map((header) => [header, key] as [string, string]),
  ]),
);

/**
 * The field key of each CSV column: from `column-mappings` (`{<csv header>: <field key>}`) when it
 * names the column, else from the header's default name; undefined for a column no field takes.
 */
export function columnKeys(
  header: readonly string[],
  mappings: Readonly<Record<string, unknown>>,
): Array<string | undefined> {
  const mapped = new Map(Object.entries(mappings).map(([column, key]) => [column.trim().toLowerCase(), key]));
  return header.map((column) => {
    const name = column.trim().toLowerCase();
    if (mapped.has(name)) {
      const key = mapped.get(name);
      return typeof key === "string" && key !== "" ? (KEY_ALIASES[key] ?? key) : undefined;
    }
    return HEADER_KEYS.get(name);
  });
}

function rowOf(record: readonly string[], keys: ReadonlyArray<string | undefined>): ImportRow {
  const row: Record<string, string> = {};
  keys.forEach((key, index) => {
    const value = record[index]?.trim();
    if (key !== undefined && value !== undefined && value !== "") row[key] = value;
  });
  return row;
}

export interface ProcessOptions {
  importType: string;
  mappings: Readonly<Record<string, unknown>>;
  update: boolean;
  runBackup: boolean;
}

/** Errors by row name, each `{field: message}` (spec §21). */
export type ImportErrors = Record<string, Record<string, string>>;

/** A row's failure in the report's words: each field's first message. */
function rowErrors(error: unknown): Record<string, string> | undefined {
  if (error instanceof Invalid) {
    const fields = Object.entries(error.details);
    return fields.length > 0
      ? Object.fromEntries(fields.map(([field, messages]) => [field, String(messages[0])]))
      : { import: error.message };
  }
  if (error instanceof DomainError) return { import: error.message };
  return undefined;
}

/** How many pre-import backups are kept: each is a whole copy of the database. */
export const KEPT_BACKUPS = 5;
const BACKUP_NAME = /^pre-import-backup-[0-9TZ-]+-[0-9a-f]{8}\.sqlite$/;

/**
 * Copies an SQLite database to `<data dir>/inventory/backups/` before an import (`run-backup`),
 * then removes all but the newest KEPT_BACKUPS, so that imports cannot fill the disk; PostgreSQL
 * is backed up by its own tools, which this process cannot run for it.
 */
async function backUp(database: InventoryDatabase, storage: Storage, logger: Logger): Promise<void> {
  if (database.dialect !== "sqlite") {
    logger.warn("run-backup asked for: back PostgreSQL up with pg_dump; the inventory does not");
    return;
  }
  await mkdir(storage.backups, { recursive: true });
  // The time first, so that names sort by age; a random part, so that two at once differ.
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const name = `pre-import-backup-${stamp}-${randomUUID().slice(0, 8)}.sqlite`;
  await sql`vacuum into ${join(storage.backups, name)}`.execute(database.db);
  const backups = (await readdir(storage.backups)).filter((file) => BACKUP_NAME.test(file)).sort();
  await discard(backups.slice(0, -KEPT_BACKUPS).map((file) => join(storage.backups, file)));
}

/** How an import's rows ended, so far. */
export interface ImportCounts {
  /** Data rows read, blank ones included. */
  processed: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

/** What processing reports after each batch: the counts so far and the file's rows. */
export type ImportProgress = (counts: Readonly<ImportCounts>, total: number) => void;

/** A row that failed: its CSV record number, how it names its record, and each field's message. */
interface FailedRow {
  line: number;
  label: string | null;
  errors: Record<string, string>;
}

type RowOutcome = "created" | "updated" | "unchanged" | FailedRow;

interface PendingRow {
  line: number;
  fields: ImportRow;
}

/** A planned create waiting to be written with others, and where its outcome goes. */
interface DeferredRow {
  index: number;
  pending: PendingRow;
  plan: PlannedCreate;
}

/**
 * A row whose planning met a refusal (a bad date) or a write of its own runs alone, to meet it in
 * its own words; any other error (of the server) is thrown, as running alone would throw it.
 */
function unplanned(error: unknown): undefined {
  if (error instanceof DomainError || error instanceof WritesMore) return undefined;
  throw error;
}

/**
 * Marks an import as processing, its counts and stored errors cleared, unless it is processing
 * already (and has moved within STALE_MS); in one transaction, so that two requests cannot both start it.
 */
async function claim(database: InventoryDatabase, row: Row, options: ProcessOptions, total: number) {
  const now = storedNow(database.dialect);
  const stale = new Date(Date.now() - STALE_MS);
  const staleStored = now instanceof Date ? stale : stale.toISOString();
  const claimed = await (database.db as AnyKysely).transaction().execute(async (trx) => {
    const result = await trx
      .updateTable("imports")
      .set({
        import_type: options.importType,
        field_map: Object.keys(options.mappings).length > 0 ? JSON.stringify(options.mappings) : null,
        import_status: "processing",
        rows_total: total,
        rows_processed: 0,
        rows_created: 0,
        rows_updated: 0,
        rows_unchanged: 0,
        rows_failed: 0,
        started_at: now,
        finished_at: null,
        updated_at: now,
      })
      .where("id", "=", row.id)
      .where((where) =>
        where.or([
          where("import_status", "is", null),
          where("import_status", "!=", "processing"),
          where("updated_at", "<", staleStored),
        ]),
      )
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await trx.deleteFrom("import_errors").where("import_id", "=", row.id).execute();
    return true;
  });
  if (!claimed) throw new Conflict(IMPORT_MESSAGES.busy);
}

/** Ends an import's processing: completed, or failed when an error of the server stopped it. */
async function settleImport(database: InventoryDatabase, id: unknown, status: "completed" | "failed") {
  const now = storedNow(database.dialect);
  await (database.db as AnyKysely)
    .updateTable("imports")
    .set({ import_status: status, finished_at: now, updated_at: now })
    .where("id", "=", id)
    .execute();
}

/** Who processes an import: the caller, where their request came from, and where errors are logged. */
export interface ImportContext {
  caller: Caller;
  origin: RequestOrigin;
  logger: Logger;
}

/** One processing of an import: the import, its file, how it is read, and by whom. */
export interface ImportJob {
  database: InventoryDatabase;
  storage: Storage;
  context: ImportContext;
  row: Row;
  path: string;
  options: ProcessOptions;
}

/**
 * Processes an import: every row through its importer, BATCH_ROWS to a transaction, each row in
 * a savepoint; answers the failed rows by name (the first MAX_REPORTED_ROWS) and the counts.
 * In update mode a row whose record already holds every value it gives writes nothing.
 */
export async function processImport(
  database: InventoryDatabase,
  storage: Storage,
  context: ImportContext,
  row: Row,
  path: string,
  options: ProcessOptions,
  progress?: ImportProgress,
): Promise<{ errors: ImportErrors; counts: ImportCounts }> {
  const job = { database, storage, context, row, path, options };
  return runImport(job, await claimImport(job), progress);
}

/**
 * Starts processing an import and answers once it is marked as processing (Conflict when it is
 * already), leaving the rows to run on: a web page then follows its progress (rows done, failed)
 * while it runs. An error of the server that stops it is logged and marks it failed.
 */
export async function startImport(job: ImportJob): Promise<void> {
  const total = await claimImport(job);
  runImport(job, total).catch((error: unknown) =>
    job.context.logger.error({ err: error, importId: job.row.id }, "import stopped by an error"),
  );
}

/**
 * Marks an import as processing (Conflict when it is already); answers its rows, counted at upload
 * (or now, for an import uploaded before uploads were counted).
 */
async function claimImport({ database, row, path, options }: ImportJob): Promise<number> {
  const total =
    row.rows_total === null || row.rows_total === undefined
      ? (await firstRecords(path)).rows
      : Number(row.rows_total);
  await claim(database, row, options, total);
  return total;
}

/** Processes a claimed import's rows. */
async function runImport(
  job: ImportJob,
  total: number,
  progress?: ImportProgress,
): Promise<{ errors: ImportErrors; counts: ImportCounts }> {
  const { database, storage, context, row, path, options } = job;
  const importer = IMPORTERS[options.importType.toLowerCase()];
  const errors: ImportErrors = {};
  const counts: ImportCounts = { processed: 0, created: 0, updated: 0, unchanged: 0, failed: 0 };

  const writeRow = async (write: WriteContext, fields: ImportRow): Promise<RowOutcome> => {
    const existing = await importer.existing(write, fields);
    if (existing && !options.update)
      throw new Invalid("The given data was invalid.", {
        [importer.definition.unique.field]: [importer.definition.unique.message],
      });
    const input = await importer.input(write, fields, existing);
    if (!existing) {
      await createWithin(write, importer.definition, input);
      return "created";
    }
    return (await updateChangedWithin(write, importer.definition, Number(existing.id), input))
      ? "updated"
      : "unchanged";
  };

  /**
   * A row's create or no-op update, planned without writing (the context has the batch's known
   * rows); undefined when the row must run alone.
   */
  const planRow = async (
    planning: WriteContext,
    fields: ImportRow,
  ): Promise<PlannedCreate | "unchanged" | undefined> => {
    const existing = await importer.existing(planning, fields);
    if (existing && !options.update) return undefined;
    const input = await importer.input(planning, fields, existing);
    if (!existing) {
      const plan = await planCreate(planning, importer.definition, input);
      return importer.bulk?.plain(planning, plan) ? plan : undefined;
    }
    const plan = await planUpdate(planning, importer.definition, Number(existing.id), input, {});
    return changesNothing(importer.definition, input, plan) ? "unchanged" : undefined;
  };

  const alone: BulkWork<PendingRow, RowOutcome> = {
    run: async (write, pending) => ({ answer: await writeRow(write, pending.fields), failed: false }),
    settle: (error, pending) => {
      const failure = rowErrors(duplicateAsInvalid(importer.definition, error));
      if (!failure) throw error;
      return {
        answer: { line: pending.line, label: importer.label(pending.fields) ?? null, errors: failure },
        failed: true,
      };
    },
  };

  /** Every row of a batch written, in file order; their outcomes. */
  const writeRows = async (write: WriteContext, batch: readonly PendingRow[]): Promise<RowOutcome[]> => {
    const outcomes: RowOutcome[] = [];
    const bulk = importer.bulk;
    if (!bulk) {
      for (const pending of batch) outcomes.push((await inSavepoint(write, pending, alone)).answer);
      return outcomes;
    }
    const planning: WriteContext = {
      ...write,
      known: await bulk.read(
        write,
        batch.map((pending) => pending.fields),
      ),
    };
    const keys = new Set<string>();
    let deferred: DeferredRow[] = [];
    const flush = async () => {
      const rows = deferred;
      deferred = [];
      if (rows.length === 0) return;
      const statement = (text: string) => sql.raw(text).execute(write.trx);
      await statement("savepoint bulk_rows");
      try {
        await createPlannedWithin(
          write,
          importer.definition,
          rows.map((row) => row.plan),
        );
      } catch {
        await statement("rollback to savepoint bulk_rows");
        for (const row of rows) outcomes[row.index] = (await inSavepoint(write, row.pending, alone)).answer;
      }
      await statement("release savepoint bulk_rows");
    };
    for (const pending of batch) {
      const key = bulk.key(pending.fields);
      const first = key !== undefined && !keys.has(key);
      if (key !== undefined) keys.add(key);
      const plan = first ? await planRow(planning, pending.fields).catch(unplanned) : undefined;
      if (plan === "unchanged") outcomes.push("unchanged");
      else if (plan) {
        deferred.push({ index: outcomes.length, pending, plan });
        outcomes.push("created");
      } else {
        await flush();
        outcomes.push((await inSavepoint(write, pending, alone)).answer);
      }
    }
    await flush();
    return outcomes;
  };

  /** A batch's counts and the failures it reports, stored with it and added up once it commits. */
  const tally = (outcomes: readonly RowOutcome[], read: number) => {
    const added: ImportCounts = { processed: read, created: 0, updated: 0, unchanged: 0, failed: 0 };
    const reported: FailedRow[] = [];
    for (const answer of outcomes) {
      if (typeof answer === "string") added[answer] += 1;
      else {
        if (counts.failed + added.failed < MAX_REPORTED_ROWS) reported.push(answer);
        added.failed += 1;
      }
    }
    return { added, reported };
  };

  const runBatch = async (batch: readonly PendingRow[], read: number) => {
    const committed = await (database.db as AnyKysely).transaction().execute(async (trx) => {
      const write: WriteContext = {
        database,
        trx: trx as AnyKysely,
        caller: context.caller,
        origin: context.origin,
      };
      const { added, reported } = tally(await writeRows(write, batch), read);
      if (reported.length > 0)
        await trx
          .insertInto("import_errors")
          .values(
            reported.map((failed) => ({
              import_id: row.id,
              row_number: failed.line,
              name: failed.label,
              messages: JSON.stringify(failed.errors),
            })),
          )
          .execute();
      await trx
        .updateTable("imports")
        .set((set) => ({
          rows_processed: set("rows_processed", "+", added.processed),
          rows_created: set("rows_created", "+", added.created),
          rows_updated: set("rows_updated", "+", added.updated),
          rows_unchanged: set("rows_unchanged", "+", added.unchanged),
          rows_failed: set("rows_failed", "+", added.failed),
          updated_at: storedNow(database.dialect),
        }))
        .where("id", "=", row.id)
        .execute();
      return { added, reported };
    });
    // The rows of a batch run without waiting on anything outside (better-sqlite3 answers at
    // once, the file is read ahead), so the server would answer no request until the import ends.
    // A request takes a few turns of the event loop (accept, read, query, answer): it gets them.
    for (let turn = 0; turn < YIELDED_TURNS; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    for (const key of Object.keys(counts) as Array<keyof ImportCounts>) counts[key] += committed.added[key];
    for (const failed of committed.reported) errors[failed.label ?? `Row ${failed.line}`] = failed.errors;
    progress?.(counts, total);
  };

  try {
    if (options.runBackup) await backUp(database, storage, context.logger);
    let keys: Array<string | undefined> | undefined;
    let line = 1;
    let batch: PendingRow[] = [];
    let blank = 0;
    for await (const record of createReadStream(path).pipe(csvParser())) {
      if (!keys) {
        keys = columnKeys(record as string[], options.mappings);
        continue;
      }
      line += 1;
      const fields = rowOf(record as string[], keys);
      if (Object.keys(fields).length === 0) blank += 1;
      else batch.push({ line, fields });
      if (batch.length + blank >= BATCH_ROWS) {
        await runBatch(batch, batch.length + blank);
        batch = [];
        blank = 0;
      }
    }
    if (batch.length + blank > 0) await runBatch(batch, batch.length + blank);
  } catch (error) {
    await settleImport(database, row.id, "failed");
    throw error;
  }
  await settleImport(database, row.id, "completed");
  return { errors, counts };
}
