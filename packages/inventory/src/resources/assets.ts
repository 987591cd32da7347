import { Invalid } from "@anvil/core";
import { addMonths, HOLDER_CLASSES, type HolderType, presentAssets } from "../convert/asset.ts";
import type { Row } from "../repositories/records.ts";
import { checkoutWithin } from "../services/checkout.ts";
import { saveAssetValues } from "../services/custom-values.ts";
import { storedNow } from "../services/database.ts";
import type { ResourceDefinition, WriteContext } from "../services/resource.ts";
import { statusType } from "./statuslabels.ts";

// Assets (spec §7.4). The definition gives the generic create/update their rules and derived
// columns; the hardware routes (routes/v1/hardware.ts) are the assets' own, since listing,
// deleting and restoring an asset follow rules no other resource has.

export const ASSET_NOT_FOUND = "Asset does not exist.";
export const RESTORE_MESSAGES = {
  success: "Asset restored successfully.",
  notDeleted: "The Asset was not deleted and therefore cannot be restored",
  tagTaken: "Error restoring asset: The asset tag must be unique.",
} as const;
const NOT_DEPLOYABLE = "That asset status is not deployable. This asset cannot be checked out.";
const DAY_FIELDS = ["purchase_date", "asset_eol_date", "expected_checkin", "next_audit_date"] as const;
/** Fields that check the asset out as it is saved, and the holder type each names. */
const ASSIGNMENTS: Record<string, HolderType> = {
  assigned_user: "user",
  assigned_location: "location",
  assigned_asset: "asset",
};

/** Any parseable date as `YYYY-MM-DD` (validation has already refused unparseable ones). */
export function toDay(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value);
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  return new Date(Date.parse(text)).toISOString().slice(0, 10);
}

function invalid(field: string, message: string): Invalid {
  return new Invalid("The given data was invalid.", { [field]: [message] });
}

/** The holder type of a class name Snipe-IT's clients send (`App\Models\User`); also the short names. */
export function holderType(value: unknown): HolderType | undefined {
  const text = String(value ?? "");
  for (const [type, className] of Object.entries(HOLDER_CLASSES))
    if (text === className || text.toLowerCase() === type) return type as HolderType;
  return undefined;
}

/** The checkout an asset's create or update asks for through assigned_user|location|asset. */
function assignmentOf(values: Record<string, unknown>): { type: HolderType; id: number } | undefined {
  for (const [field, type] of Object.entries(ASSIGNMENTS))
    if (typeof values[field] === "number") return { type, id: values[field] as number };
  return undefined;
}

async function prepare(context: WriteContext, values: Record<string, unknown>, before: Row | undefined) {
  const { trx } = context;
  const extra: Record<string, unknown> = {};
  if (typeof values.asset_tag === "string") {
    const holder = context.known?.row("assets", "asset_tag", values.asset_tag);
    const clash =
      holder !== undefined
        ? holder !== null && Number(holder.id) !== Number(before?.id)
        : await trx
            .selectFrom("assets")
            .select("id")
            .where("asset_tag", "=", values.asset_tag)
            .where("deleted_at", "is", null)
            .$if(before !== undefined, (q) => q.where("id", "!=", before?.id ?? 0))
            .executeTakeFirst();
    if (clash)
      throw invalid(
        "asset_tag",
        before ? "The asset tag has already been taken." : "The asset tag must be unique.",
      );
  }
  for (const field of DAY_FIELDS) if (values[field] !== undefined) extra[field] = toDay(values[field]);
  // A new default location without a current one moves the asset there too.
  if (values.rtd_location_id !== undefined && values.location_id === undefined)
    extra.location_id = values.rtd_location_id;
  if (values.last_audit_date !== undefined)
    extra.last_audit_date =
      values.last_audit_date === null
        ? null
        : storedNow(context.database.dialect) instanceof Date
          ? new Date(`${toDay(values.last_audit_date)}T00:00:00Z`)
          : `${toDay(values.last_audit_date)}T00:00:00.000Z`;

  // End of life: set explicitly, or the purchase date plus the model's EOL months.
  if (values.asset_eol_date !== undefined) extra.eol_explicit = values.asset_eol_date !== null;
  else if (
    (values.purchase_date !== undefined || values.model_id !== undefined) &&
    !(before && Boolean(before.eol_explicit))
  ) {
    const purchased = values.purchase_date !== undefined ? extra.purchase_date : before?.purchase_date;
    const modelId = Number(values.model_id ?? before?.model_id);
    const known = context.known?.row("models", "id", modelId);
    const model =
      known !== undefined
        ? (known ?? undefined)
        : await trx.selectFrom("models").select("eol").where("id", "=", modelId).executeTakeFirst();
    extra.asset_eol_date =
      purchased && model?.eol !== null && model?.eol !== undefined
        ? addMonths(String(purchased), Number(model.eol))
        : null;
  }

  const direct = values.assigned_to !== undefined || values.assigned_type !== undefined;
  if (direct) {
    const id = values.assigned_to;
    const type = holderType(values.assigned_type);
    if (id === null || id === undefined) {
      if (values.assigned_type !== null && values.assigned_type !== undefined)
        throw invalid("assigned_to", "The assigned to field is required when assigned type is present.");
      Object.assign(extra, { assigned_to: null, assigned_type: null });
    } else if (values.assigned_type === null || values.assigned_type === undefined)
      throw invalid("assigned_type", "The assigned type field is required when assigned to is present.");
    else if (!type || !Object.values(HOLDER_CLASSES).includes(String(values.assigned_type) as never))
      throw invalid("assigned_type", "The selected assigned type is invalid.");
    else {
      const table = { user: "users", location: "locations", asset: "assets" }[type];
      const found = await trx
        .selectFrom(table)
        .select("id")
        .where("id", "=", id as number)
        .where("deleted_at", "is", null)
        .executeTakeFirst();
      if (!found || (type === "asset" && id === before?.id))
        throw invalid("assigned_to", "The selected assigned to is invalid.");
      Object.assign(extra, { assigned_to: id, assigned_type: type });
    }
  }
  if (assignmentOf(values) || (direct && extra.assigned_to !== null)) {
    const label = await trx
      .selectFrom("status_labels")
      .selectAll()
      .where("id", "=", Number(values.status_id ?? before?.status_id))
      .executeTakeFirst();
    if (!label || statusType(label as Row) !== "deployable") throw invalid("status_id", NOT_DEPLOYABLE);
  }
  return extra;
}

async function afterSave(
  context: WriteContext,
  row: Row,
  values: Record<string, unknown>,
  before: Row | undefined,
  input: Readonly<Record<string, unknown>>,
) {
  const changed = await saveAssetValues(context, row, input, before ? "update" : "create");
  const target = assignmentOf(values);
  if (target)
    await checkoutWithin(context, row, target, {
      note: before ? "Checked out on asset update" : "Checked out on asset creation",
      expectedCheckin: (row.expected_checkin as string | null) ?? null,
    });
  return changed;
}

export const assets: ResourceDefinition = {
  table: "assets",
  path: "hardware",
  permission: "assets",
  itemType: "asset",
  notFound: "Asset not found",
  deleteNotFound: ASSET_NOT_FOUND,
  messages: {
    create: "Asset created successfully. :)",
    update: "Asset updated successfully.",
    delete: "The asset was deleted successfully.",
  },
  rules: {
    asset_tag: "required|string|min:1|max:255",
    model_id: "required|integer|exists:models",
    status_id: "required|integer|exists:status_labels",
    name: "nullable|string|max:255",
    serial: "nullable|string|max:255",
    company_id: "nullable|integer|exists:companies",
    location_id: "nullable|integer|exists:locations",
    rtd_location_id: "nullable|integer|exists:locations",
    supplier_id: "nullable|integer|exists:suppliers",
    purchase_date: "nullable|date",
    purchase_cost: "nullable|numeric|min:0|max:99999999999",
    order_number: "nullable|string|max:191",
    notes: "nullable|string|max:65535",
    warranty_months: "nullable|integer|min:0|max:2147483647",
    asset_eol_date: "nullable|date",
    expected_checkin: "nullable|date",
    next_audit_date: "nullable|date",
    last_audit_date: "nullable|date",
    requestable: "boolean",
    byod: "boolean",
    assigned_user: "nullable|integer|exists:users",
    assigned_location: "nullable|integer|exists:locations",
    assigned_asset: "nullable|integer|exists:assets",
    assigned_to: "nullable|integer",
    assigned_type: "nullable|string",
  },
  columns: [
    "asset_tag",
    "model_id",
    "status_id",
    "name",
    "serial",
    "company_id",
    "location_id",
    "rtd_location_id",
    "supplier_id",
    "purchase_date",
    "purchase_cost",
    "order_number",
    "notes",
    "warranty_months",
    "asset_eol_date",
    "expected_checkin",
    "next_audit_date",
    "requestable",
    "byod",
  ],
  softDeletes: true,
  unique: { field: "asset_tag", message: "The asset tag must be unique." },
  rawPayload: true,
  // The hardware routes list assets themselves (services/assets.ts).
  list: { sorts: [], defaultSort: "created_at", search: [], filters: {} },
  relations: {},
  counts: [],
  prepare,
  afterSave,
  present: async (row, context) => (await presentAssets(context.db, context.caller, [row]))[0],
};
