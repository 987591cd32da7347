import { unescaped } from "../../convert/format.ts";
import type { Row } from "../../repositories/records.ts";
import { flag } from "../../services/custom-fields.ts";

// How the asset pages show an asset object of the API (convert/asset.ts): its text as typed (the
// API object holds it HTML-escaped, as Snipe-IT's does, and the templates escape once themselves),
// and the list's columns with Snipe-IT's titles and defaults (its AssetPresenter::dataTableLayout).

/** An asset object of the API with its text unescaped; read by the columns and the templates. */
export type ShownAsset = Record<string, unknown> & { id: number };

/** A copy of an API object (or list of them) whose every string is back to the text as typed. */
export function plain(value: unknown): unknown {
  if (typeof value === "string") return unescaped(value);
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  return value;
}

/** `object.key.name`-like reads of a shown asset: the text, or "" when any step is missing. */
function read(asset: ShownAsset, ...path: string[]): string {
  let value: unknown = asset;
  for (const step of path) {
    if (typeof value !== "object" || value === null) return "";
    value = (value as Record<string, unknown>)[step];
  }
  return value === null || value === undefined ? "" : String(value);
}

export interface AssetColumn {
  key: string;
  title: string;
  /** The list's `sort` for this column; none when the API cannot sort by it. */
  sort?: string;
  /** Shown until the user chooses columns. */
  shown: boolean;
  text: (asset: ShownAsset) => string;
  /** Links to the asset's page. */
  linksAsset?: boolean;
}

const named = (key: string) => (asset: ShownAsset) => read(asset, key, "name");
const formatted = (key: string) => (asset: ShownAsset) => read(asset, key, "formatted");
const own = (key: string) => (asset: ShownAsset) => read(asset, key);

/** Every column, in Snipe-IT's order, with its titles and whether it shows by default. */
export const ASSET_COLUMNS: readonly AssetColumn[] = [
  { key: "id", title: "ID", sort: "id", shown: false, text: own("id") },
  { key: "company", title: "Company", sort: "company", shown: false, text: named("company") },
  { key: "name", title: "Asset Name", sort: "name", shown: true, text: own("name"), linksAsset: true },
  {
    key: "asset_tag",
    title: "Asset Tag",
    sort: "asset_tag",
    shown: true,
    text: own("asset_tag"),
    linksAsset: true,
  },
  { key: "serial", title: "Serial", sort: "serial", shown: true, text: own("serial") },
  { key: "model", title: "Model", sort: "model", shown: true, text: named("model") },
  { key: "model_number", title: "Model No.", sort: "model_number", shown: false, text: own("model_number") },
  { key: "category", title: "Category", sort: "category", shown: true, text: named("category") },
  { key: "status_label", title: "Status", sort: "status_label", shown: true, text: named("status_label") },
  {
    key: "assigned_to",
    title: "Checked Out To",
    sort: "assigned_to",
    shown: true,
    text: named("assigned_to"),
  },
  {
    key: "employee_number",
    title: "Employee Number",
    shown: false,
    text: (asset) => read(asset, "assigned_to", "employee_number"),
  },
  { key: "location", title: "Location", sort: "location", shown: true, text: named("location") },
  {
    key: "rtd_location",
    title: "Default Location",
    sort: "rtd_location",
    shown: false,
    text: named("rtd_location"),
  },
  {
    key: "manufacturer",
    title: "Manufacturer",
    sort: "manufacturer",
    shown: false,
    text: named("manufacturer"),
  },
  { key: "supplier", title: "Supplier", sort: "supplier", shown: false, text: named("supplier") },
  {
    key: "purchase_date",
    title: "Purchase Date",
    sort: "purchase_date",
    shown: false,
    text: formatted("purchase_date"),
  },
  { key: "age", title: "Age", shown: false, text: own("age") },
  {
    key: "purchase_cost",
    title: "Purchase Cost",
    sort: "purchase_cost",
    shown: true,
    text: own("purchase_cost"),
  },
  {
    key: "order_number",
    title: "Order Number",
    sort: "order_number",
    shown: false,
    text: own("order_number"),
  },
  { key: "eol", title: "EOL", shown: true, text: own("eol") },
  {
    key: "warranty_months",
    title: "Warranty",
    sort: "warranty_months",
    shown: false,
    text: own("warranty_months"),
  },
  { key: "warranty_expires", title: "Warranty Expires", shown: false, text: formatted("warranty_expires") },
  { key: "notes", title: "Notes", sort: "notes", shown: false, text: own("notes") },
  {
    key: "checkout_counter",
    title: "Checkouts",
    sort: "checkout_counter",
    shown: false,
    text: own("checkout_counter"),
  },
  {
    key: "checkin_counter",
    title: "Checkins",
    sort: "checkin_counter",
    shown: false,
    text: own("checkin_counter"),
  },
  {
    key: "requests_counter",
    title: "Requests",
    sort: "requests_counter",
    shown: false,
    text: own("requests_counter"),
  },
  { key: "created_at", title: "Created At", sort: "created_at", shown: false, text: formatted("created_at") },
  { key: "updated_at", title: "Updated At", sort: "updated_at", shown: false, text: formatted("updated_at") },
  {
    key: "last_checkout",
    title: "Checkout Date",
    sort: "last_checkout",
    shown: false,
    text: formatted("last_checkout"),
  },
  {
    key: "expected_checkin",
    title: "Expected Checkin Date",
    sort: "expected_checkin",
    shown: false,
    text: formatted("expected_checkin"),
  },
  {
    key: "last_audit_date",
    title: "Last Audit",
    sort: "last_audit_date",
    shown: false,
    text: formatted("last_audit_date"),
  },
  {
    key: "next_audit_date",
    title: "Next Audit Date",
    sort: "next_audit_date",
    shown: false,
    text: formatted("next_audit_date"),
  },
  { key: "byod", title: "BYOD", sort: "byod", shown: false, text: (asset) => (asset.byod ? "Yes" : "No") },
];

export const DEFAULT_COLUMNS = ASSET_COLUMNS.filter((column) => column.shown).map((column) => column.key);

/**
 * A column for each custom field (Snipe-IT lists them after its own), chosen like the others; it
 * sorts by the field's column as the API does, but an encrypted one does not (its order would be
 * the ciphertext's, and say something of the values).
 */
export function customColumns(fields: readonly Row[]): AssetColumn[] {
  return fields.map((field) => ({
    key: String(field.db_column),
    title: String(field.name),
    sort: flag(field, "field_encrypted") ? undefined : String(field.db_column),
    shown: false,
    text: (asset: ShownAsset) => read(asset, "custom_fields", String(field.name), "value"),
  }));
}
