import { type DialectName, forUpdate, Invalid } from "@anvil/core";
import { date, escaped, money, related } from "../convert/format.ts";
import type { Row } from "../repositories/records.ts";
import type { Executor } from "../services/database.ts";
import type { PresentContext, Relation, WriteContext } from "../services/resource.ts";
import type { Rules } from "../services/validation.ts";
import { CREATED_BY } from "./common.ts";

// What accessories, consumables and components share (spec §15–§17): counted stock in a category,
// bought from a supplier, kept at a location. What remains is the quantity less what is checked out.

export const STOCK_RULES = {
  qty: "required|integer|min:1",
  category_id: "required|integer|exists:categories",
  company_id: "nullable|integer|exists:companies",
  location_id: "nullable|integer|exists:locations",
  manufacturer_id: "nullable|integer|exists:manufacturers",
  supplier_id: "nullable|integer|exists:suppliers",
  model_number: "nullable|string|max:255",
  order_number: "nullable|string|max:255",
  purchase_cost: "nullable|numeric|min:0",
  purchase_date: "nullable|date",
  min_amt: "nullable|integer|min:0",
  notes: "nullable|string|max:65535",
} as const satisfies Rules;

export const STOCK_COLUMNS = ["name", ...Object.keys(STOCK_RULES)];

export const STOCK_RELATIONS: Record<string, Relation> = {
  ...CREATED_BY,
  category: { table: "categories", column: "category_id" },
  company: { table: "companies", column: "company_id" },
  location: { table: "locations", column: "location_id" },
  manufacturer: { table: "manufacturers", column: "manufacturer_id" },
  supplier: { table: "suppliers", column: "supplier_id" },
};

export const STOCK_SORTS = [
  "id",
  "name",
  "qty",
  "min_amt",
  "model_number",
  "order_number",
  "purchase_date",
  "purchase_cost",
  "notes",
  "created_at",
  "updated_at",
  "category",
  "company",
  "location",
  "manufacturer",
  "supplier",
] as const;

export const STOCK_FILTERS = {
  name: "text",
  category_id: "id",
  company_id: "id",
  location_id: "id",
  manufacturer_id: "id",
  supplier_id: "id",
  model_number: "text",
  order_number: "text",
} as const;

/** The related `{id, name}` objects of a stock row. */
export function stockRelations(row: Row, context: PresentContext) {
  const of = (name: string, column: string) => related(row[column] as number | null, context.names[name]);
  return {
    company: of("company", "company_id"),
    manufacturer: of("manufacturer", "manufacturer_id"),
    supplier: of("supplier", "supplier_id"),
    category: of("category", "category_id"),
    location: of("location", "location_id"),
  };
}

/** Purchase fields as every stock transformer prints them. */
export function purchase(row: Row) {
  return {
    model_number: escaped(row.model_number as string | null),
    order_number: escaped(row.order_number as string | null),
    purchase_date: date(row.purchase_date as string | null),
    purchase_cost: money(row.purchase_cost as string | null),
  };
}

/** Refuses a category of another type than the item's (accessory, consumable…). */
export function requireCategoryType(type: string) {
  return async (context: WriteContext, values: Record<string, unknown>): Promise<void> => {
    if (typeof values.category_id !== "number") return;
    const category = await context.trx
      .selectFrom("categories")
      .select("category_type")
      .where("id", "=", values.category_id)
      .executeTakeFirst();
    if (category?.category_type !== type)
      throw new Invalid("The given data was invalid.", {
        category_type: [`This category must be ${/^[aeiou]/.test(type) ? "an" : "a"} ${type} category.`],
      });
  };
}

/**
 * The undeleted row, locked until the transaction ends (core's claim pattern 2): check-outs,
 * check-ins, quantity changes and deletes of one item take their turns, so what remains is
 * decided on what the previous one committed.
 */
export async function lockItem(
  trx: Executor,
  dialect: DialectName,
  table: "accessories" | "consumables" | "components" | "licenses",
  id: number,
): Promise<Row | undefined> {
  if (!Number.isSafeInteger(id)) return undefined;
  return (await trx
    .selectFrom(table)
    .selectAll()
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .$call(forUpdate(dialect))
    .executeTakeFirst()) as Row | undefined;
}

/** A quantity that may not drop below what is checked out. */
export function keepQuantityAbove(held: number, qty: unknown): void {
  if (typeof qty === "number" && qty < held)
    throw new Invalid("The given data was invalid.", {
      qty: [`The qty field must be at least ${held}.`],
    });
}
