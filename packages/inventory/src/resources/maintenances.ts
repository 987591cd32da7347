import { type AnyKysely, containsText, Invalid } from "@anvil/core";
import { type Expression, type SqlBool, sql } from "kysely";
import { bool, date, datetime, escaped, money, related } from "../convert/format.ts";
import { namesOf, type Row } from "../repositories/records.ts";
import { companyScope, inCallersCompany, rowVisibleTo } from "../services/companies.ts";
import { can } from "../services/permissions.ts";
import type { ResourceDefinition } from "../services/resource.ts";
import { CREATED_BY } from "./common.ts";
import { statusType } from "./statuslabels.ts";

// Asset maintenances (Snipe-IT's AssetMaintenance): work done on an asset, by a supplier, over
// days. They belong to their asset's company, and Snipe-IT guards them with the asset policy:
// reading takes assets.view, every write assets.edit.

/** Snipe-IT's maintenance types (its getImprovementOptions), as stored and shown. */
export const MAINTENANCE_TYPES = [
  "Maintenance",
  "Repair",
  "Upgrade",
  "PAT test",
  "Calibration",
  "Software Support",
  "Hardware Support",
  "Configuration Change",
] as const;

const TABLE = "asset_maintenances";

/** A column of the maintenance's asset, to sort by. */
function assetColumn(column: string) {
  return (table: string) =>
    sql`(select ${sql.ref(`assets.${column}`)} from assets where assets.id = ${sql.ref(`${table}.asset_id`)})`;
}

/** A date the `date` rule accepted, as the calendar day the column keeps. */
function day(value: unknown): string | null {
  return typeof value === "string" ? value.slice(0, 10) : null;
}

/** Whole days from start to completion, as Snipe-IT's asset_maintenance_time counts them. */
function daysBetween(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000);
}

function invalid(field: string, message: string): Invalid {
  return new Invalid("The given data was invalid.", { [field]: [message] });
}

/** The maintenances' assets and what their objects show of them, read once for a page. */
async function assetsOf(db: AnyKysely, rows: Row[]) {
  const ids = [...new Set(rows.map((row) => Number(row.asset_id)))];
  const assets = (
    ids.length === 0
      ? []
      : await db
          .selectFrom("assets")
          .select([
            "id",
            "name",
            "asset_tag",
            "serial",
            "model_id",
            "status_id",
            "company_id",
            "location_id",
            "rtd_location_id",
            "assigned_to",
            "deleted_at",
            "created_at",
            "updated_at",
          ])
          .where("id", "in", ids)
          .execute()
  ) as Row[];
  const of = (column: string) => assets.map((asset) => asset[column]);
  const byId = async (table: string, columns: string[], wanted: unknown[]) => {
    const distinct = [...new Set(wanted.filter((id) => id !== null).map(Number))];
    const found = (
      distinct.length === 0
        ? []
        : await db.selectFrom(table).select(columns).where("id", "in", distinct).execute()
    ) as Row[];
    return new Map(found.map((row) => [Number(row.id), row]));
  };
  const [models, labels, companies, locations] = await Promise.all([
    byId("models", ["id", "name", "model_number"], of("model_id")),
    byId("status_labels", ["id", "name", "deployable", "pending", "archived"], of("status_id")),
    namesOf(db, "companies", of("company_id")),
    namesOf(db, "locations", [...of("location_id"), ...of("rtd_location_id")]),
  ]);
  return {
    assets: new Map(assets.map((asset) => [Number(asset.id), asset])),
    models,
    labels,
    companies,
    locations,
  };
}

export const maintenances: ResourceDefinition = {
  table: TABLE,
  path: "maintenances",
  permission: "assets",
  gates: { create: "assets.edit", delete: "assets.edit" },
  itemType: "maintenance",
  notFound: "AssetMaintenance not found",
  messages: {
    create: "Asset Maintenance created successfully.",
    update: "Asset Maintenance edited successfully.",
    delete: "The asset maintenance was deleted successfully.",
  },
  rules: {
    asset_id: "required|integer|exists:assets",
    supplier_id: "nullable|integer|exists:suppliers",
    asset_maintenance_type: "required|string|max:191",
    title: "required|string|min:1|max:100",
    is_warranty: "nullable|boolean",
    start_date: "required|date",
    completion_date: "nullable|date",
    notes: "nullable|string|max:65535",
    cost: "nullable|numeric|min:0|max:99999999999",
  },
  columns: [
    "asset_id",
    "supplier_id",
    "asset_maintenance_type",
    "title",
    "is_warranty",
    "start_date",
    "completion_date",
    "notes",
    "cost",
  ],
  softDeletes: true,
  // No unique index: the field is named only because every definition names one.
  unique: { field: "title", message: "The title has already been taken." },
  visible: (db, caller, row) => rowVisibleTo(db, caller, "assets", Number(row.asset_id)),
  list: {
    sorts: [
      "id",
      "title",
      "asset_maintenance_time",
      "asset_maintenance_type",
      "cost",
      "start_date",
      "completion_date",
      "notes",
      "asset_tag",
      "asset_name",
      "serial",
      "created_by",
      "user_id",
      "supplier",
      "is_warranty",
      "status_label",
      "created_at",
      "updated_at",
    ],
    defaultSort: "created_at",
    search: ["title", "notes", "asset_maintenance_type", "cost", "start_date", "completion_date"],
    filters: { asset_id: "id", supplier_id: "id", asset_maintenance_type: "text", created_by: "id" },
    // Snipe-IT's searchable relations: the asset's name, tag and serial, its model's name and
    // number, its supplier and label, and the maintenance's supplier.
    searchRelated: (dialect, term, table) => {
      const has = (column: string) => containsText(dialect, sql.ref(column), term);
      const asset = (join: ReturnType<typeof sql>, where: Expression<SqlBool>) =>
        sql<SqlBool>`${sql.ref(`${table}.asset_id`)} in (select assets.id from assets ${join} where ${where})`;
      return [
        asset(
          sql``,
          sql<SqlBool>`${has("assets.name")} or ${has("assets.asset_tag")} or ${has("assets.serial")}`,
        ),
        asset(
          sql`join models on models.id = assets.model_id`,
          sql<SqlBool>`${has("models.name")} or ${has("models.model_number")}`,
        ),
        asset(sql`join suppliers on suppliers.id = assets.supplier_id`, has("suppliers.name")),
        asset(sql`join status_labels on status_labels.id = assets.status_id`, has("status_labels.name")),
        sql<SqlBool>`${sql.ref(`${table}.supplier_id`)} in (select suppliers.id from suppliers where ${has("suppliers.name")})`,
      ];
    },
    // Under full multiple companies support, only the maintenances of the caller's company's assets.
    refine: (select, _query, caller) =>
      companyScope(caller, "assets")
        ? select.where((eb) =>
            eb(
              `${TABLE}.asset_id`,
              "in",
              inCallersCompany(eb.selectFrom("assets").select("assets.id"), caller, "assets"),
            ),
          )
        : select,
    orderBy: {
      asset_tag: assetColumn("asset_tag"),
      asset_name: assetColumn("name"),
      serial: assetColumn("serial"),
      // Snipe-IT's older name of created_by.
      user_id: (table) =>
        sql`(select users.first_name from users where users.id = ${sql.ref(`${table}.created_by`)})`,
      status_label: (table) =>
        sql`(select status_labels.name from assets join status_labels on status_labels.id = assets.status_id where assets.id = ${sql.ref(`${table}.asset_id`)})`,
    },
  },
  relations: { ...CREATED_BY, supplier: { table: "suppliers", column: "supplier_id" } },
  counts: [],
  prepare: async (context, values, before) => {
    const extra: Record<string, unknown> = {};
    if (typeof values.asset_id === "number") {
      // `exists` found the asset; only a company may still hide it from the caller.
      if (!(await rowVisibleTo(context.trx, context.caller, "assets", values.asset_id)))
        throw invalid("asset_id", "The selected asset id is invalid.");
    }
    if (typeof values.asset_maintenance_type === "string") {
      const asked = values.asset_maintenance_type.toLowerCase();
      const type = MAINTENANCE_TYPES.find((known) => known.toLowerCase() === asked);
      if (!type) throw invalid("asset_maintenance_type", "The selected asset maintenance type is invalid.");
      extra.asset_maintenance_type = type;
    }
    if ("is_warranty" in values) extra.is_warranty = values.is_warranty === true;
    // Snipe-IT stores a cost of 0 as no cost (QUIRK kept).
    if (values.cost === 0) extra.cost = null;
    const start = "start_date" in values ? day(values.start_date) : day(before?.start_date);
    const end = "completion_date" in values ? day(values.completion_date) : day(before?.completion_date);
    if ("start_date" in values) extra.start_date = start;
    if ("completion_date" in values) extra.completion_date = end;
    if (start !== null && end !== null && end < start)
      throw invalid(
        "completion_date",
        "The completion date field must be a date after or equal to start date.",
      );
    extra.asset_maintenance_time = start !== null && end !== null ? daysBetween(start, end) : null;
    return extra;
  },
  preload: async (database, _caller, rows) => assetsOf(database.db as AnyKysely, rows),
  rawPayload: true,
  present: (row, context) => {
    const loaded = context.preloaded as unknown as Awaited<ReturnType<typeof assetsOf>>;
    const asset = loaded.assets.get(Number(row.asset_id));
    const model = asset ? loaded.models.get(Number(asset.model_id)) : undefined;
    const label = asset ? loaded.labels.get(Number(asset.status_id)) : undefined;
    const type = label ? statusType(label) : "undeployable";
    const creator = related(row.created_by as number | null, context.names.created_by);
    return {
      id: row.id,
      asset: asset
        ? {
            id: Number(asset.id),
            name: escaped((asset.name as string | null) || null),
            asset_tag: escaped(asset.asset_tag as string),
            serial: escaped(asset.serial as string | null),
            deleted_at: datetime(asset.deleted_at as string | null),
            created_at: datetime(asset.created_at as string),
            updated_at: datetime(asset.updated_at as string),
          }
        : null,
      // Snipe-IT names the model by its name and number together.
      model: model
        ? {
            id: Number(model.id),
            name: `${escaped(model.name as string)} ${escaped(model.model_number as string | null) ?? ""}`,
          }
        : null,
      status_label: label
        ? {
            id: Number(label.id),
            name: escaped(label.name as string),
            status_type: type,
            status_meta: asset?.assigned_to !== null ? "deployed" : type,
          }
        : null,
      company: related(asset?.company_id as number | null, loaded.companies),
      title: escaped(row.title as string),
      location: related(asset?.location_id as number | null, loaded.locations),
      rtd_location: related(asset?.rtd_location_id as number | null, loaded.locations),
      notes: escaped(row.notes as string | null),
      supplier: related(row.supplier_id as number | null, context.names.supplier),
      cost: money(row.cost as string | null),
      asset_maintenance_type: escaped(row.asset_maintenance_type as string),
      start_date: date(row.start_date as string),
      asset_maintenance_time: row.asset_maintenance_time === null ? null : Number(row.asset_maintenance_time),
      completion_date: date(row.completion_date as string | null),
      // Snipe-IT keeps the creator under its older name too, so as not to change the API's shape.
      user_id: creator,
      created_by: creator,
      created_at: datetime(row.created_at as string),
      updated_at: datetime(row.updated_at as string),
      is_warranty: bool(row.is_warranty as number),
      available_actions: {
        update: can(context.caller, "assets.edit") && asset?.deleted_at === null,
        // The gate DELETE checks (Snipe-IT's transformer shows assets.delete, which it never asks).
        delete: can(context.caller, "assets.edit"),
      },
    };
  },
};

/** The same routes under Snipe-IT's older path. */
export const legacyMaintenances: ResourceDefinition = { ...maintenances, path: "hardware/maintenances" };
