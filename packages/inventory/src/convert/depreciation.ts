import type { AnyKysely } from "@anvil/core";
import type { Row } from "../repositories/records.ts";
import { readSettings } from "../repositories/settings.ts";
import type { Caller } from "../services/permissions.ts";
import { monthsBetween, presentAssets } from "./asset.ts";
import { money } from "./format.ts";

// Snipe-IT's depreciation report rows (GET /reports/depreciation): an asset flattened to names, so
// that someone allowed the report learns no more about an asset than the report shows, with its
// value now under its model's depreciation (straight line from the purchase down to the floor).

type Named = { name: string } | null;

const nameOf = (thing: unknown) => (thing as Named)?.name ?? null;

/** Straight-line value after `months` of `term`, never below the floor (a percentage or an amount). */
export function bookValue(
  cost: number,
  depreciation: { months: number; floor: number; type: string },
  monthsPassed: number,
): { value: number; monthly: number } {
  const floor = depreciation.type === "percent" ? (cost * depreciation.floor) / 100 : depreciation.floor;
  const monthly = (cost - floor) / depreciation.months;
  const passed = Math.max(0, monthsPassed);
  const value = passed >= depreciation.months ? floor : cost - monthly * passed;
  return { value: Math.max(floor, value), monthly };
}

export async function presentDepreciationReport(db: AnyKysely, caller: Caller, rows: Row[]) {
  const assets = await presentAssets(db, caller, rows);
  const modelIds = [...new Set(rows.map((row) => Number(row.model_id)))];
  const models = modelIds.length
    ? await db.selectFrom("models").select(["id", "depreciation_id"]).where("id", "in", modelIds).execute()
    : [];
  const depreciationIds = [
    ...new Set(models.map((model) => model.depreciation_id).filter((id) => id !== null)),
  ];
  const depreciations = depreciationIds.length
    ? await db.selectFrom("depreciations").selectAll().where("id", "in", depreciationIds).execute()
    : [];
  const locationIds = [...new Set(rows.map((row) => row.location_id).filter((id) => id !== null))];
  const locations = locationIds.length
    ? await db.selectFrom("locations").select(["id", "currency"]).where("id", "in", locationIds).execute()
    : [];
  const currencies = new Map(
    locations.map((location) => [Number(location.id), location.currency as string | null]),
  );
  const { default_currency: defaultCurrency } = await readSettings(db);
  const depreciationOfModel = new Map(
    models.map((model) => [
      Number(model.id),
      depreciations.find((d) => Number(d.id) === Number(model.depreciation_id)) as Row | undefined,
    ]),
  );
  const today = new Date().toISOString().slice(0, 10);
  return rows.map((row, index) => {
    const asset = assets[index];
    const depreciation = depreciationOfModel.get(Number(row.model_id));
    const cost = row.purchase_cost === null ? null : Number(row.purchase_cost);
    const purchased = (row.purchase_date as string | null) ?? null;
    const worth =
      depreciation && cost !== null
        ? bookValue(
            cost,
            {
              months: Number(depreciation.months),
              floor: Number(depreciation.depreciation_min ?? 0),
              type: String(depreciation.depreciation_type),
            },
            purchased ? monthsBetween(purchased, today) : 0,
          )
        : undefined;
    const holder = asset.assigned_to as Named;
    const label = asset.status_label as { name: string; status_meta: string } | null;
    return {
      id: row.id,
      company: nameOf(asset.company),
      name: asset.name,
      asset_tag: asset.asset_tag,
      serial: asset.serial,
      model: nameOf(asset.model),
      model_number: asset.model_number,
      eol: asset.asset_eol_date,
      status_label: label?.name ?? null,
      status: label?.status_meta ?? null,
      category: nameOf(asset.category),
      manufacturer: nameOf(asset.manufacturer),
      supplier: nameOf(asset.supplier),
      notes: asset.notes,
      order_number: asset.order_number,
      location: nameOf(asset.location),
      warranty_expires: asset.warranty_expires,
      currency: currencies.get(Number(row.location_id)) || defaultCurrency,
      purchase_date: asset.purchase_date,
      purchase_cost: money(cost),
      book_value: worth ? money(worth.value) : null,
      monthly_depreciation: worth ? money(worth.monthly) : null,
      checked_out_to: holder?.name ?? null,
      diff: worth && cost !== null ? money(cost - worth.value) : null,
      number_of_months: depreciation ? Number(depreciation.months) : null,
      depreciation: depreciation ? (depreciation.name as string) : null,
    };
  });
}
