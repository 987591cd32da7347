import { Readable } from "node:stream";
import type { AnyKysely } from "@anvil/core";
import { stringify } from "csv-stringify";
import type { FastifyReply, FastifyRequest } from "fastify";
import { assignedFilter, listAssets } from "../../services/assets.ts";
import { listFields } from "../../services/custom-fields.ts";
import type { InventoryDatabase } from "../../services/database.ts";
import { MAX_RESULTS } from "../../services/listing.ts";
import { can } from "../../services/permissions.ts";
import { choicesOf } from "../choices.ts";
import { guard, pageCaller, render, renderPart, type WebContext, wantsPart } from "../context.ts";
import {
  ASSET_COLUMNS,
  type AssetColumn,
  customColumns,
  DEFAULT_COLUMNS,
  plain,
  type ShownAsset,
} from "./hardware-view.ts";

// The asset list (Snipe-IT's /hardware): listAssets, as GET /api/v1/hardware calls it, with the
// same search, filters, sorts and offsets, so it is as fast. Its state is all in the query string
// (shareable, and it works without JavaScript); with htmx, the list part is swapped in place.

/** The page sizes offered (Snipe-IT's bootstrap-table offers these). */
const PAGE_SIZES = [20, 50, 100, 200];
const DEFAULT_SIZE = 20;
/** The list's filters: the query's name, as the API reads it. */
const ID_FILTERS = ["status_id", "model_id", "category_id", "location_id", "company_id"] as const;

interface ListState {
  search: string;
  filters: Record<(typeof ID_FILTERS)[number], string>;
  /** "yes": only checked-out assets; "no": only those not checked out; "": both. */
  assigned: string;
  sort: string;
  order: "asc" | "desc";
  limit: number;
  offset: number;
  columns: string[];
}

function one(value: unknown): string {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" ? first : "";
}

function many(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === "string");
}

/** The list's state from the query string; anything unknown is the default, never an error. */
function listState(query: Record<string, unknown>, columns: readonly AssetColumn[]): ListState {
  const limit = Number(one(query.limit));
  const offset = Number(one(query.offset));
  const known = new Set(columns.map((column) => column.key));
  const sortable = new Set(columns.flatMap((column) => (column.sort ? [column.sort] : [])));
  const chosen = many(query.col).filter((key) => known.has(key));
  const sort = one(query.sort);
  return {
    search: one(query.search).trim(),
    filters: Object.fromEntries(
      ID_FILTERS.map((name) => [name, /^\d+$/.test(one(query[name])) ? one(query[name]) : ""]),
    ) as ListState["filters"],
    assigned: ["yes", "no"].includes(one(query.assigned)) ? one(query.assigned) : "",
    sort: sortable.has(sort) ? sort : "created_at",
    order: one(query.order) === "asc" ? "asc" : "desc",
    limit: PAGE_SIZES.includes(limit) ? limit : DEFAULT_SIZE,
    offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
    columns: chosen.length > 0 ? chosen : DEFAULT_COLUMNS,
  };
}

/** The query listAssets reads, as GET /api/v1/hardware would be asked. */
function serviceQuery(state: ListState): Record<string, unknown> {
  const query: Record<string, unknown> = {
    sort: state.sort,
    order: state.order,
    limit: state.limit,
    offset: state.offset,
  };
  if (state.search !== "") query.search = state.search;
  for (const [name, value] of Object.entries(state.filters)) if (value !== "") query[name] = value;
  return query;
}

function scopeOf(state: ListState) {
  return state.assigned === "" ? {} : { narrow: assignedFilter(state.assigned === "yes") };
}

/** The list's URL for this state with some parts changed; defaults are left out. */
function listUrl(state: ListState, changes: Partial<ListState> = {}, path = "/hardware"): string {
  const next = { ...state, ...changes };
  const params = new URLSearchParams();
  if (next.search !== "") params.set("search", next.search);
  for (const [name, value] of Object.entries(next.filters)) if (value !== "") params.set(name, value);
  if (next.assigned !== "") params.set("assigned", next.assigned);
  if (next.sort !== "created_at") params.set("sort", next.sort);
  if (next.order !== "desc") params.set("order", next.order);
  if (next.limit !== DEFAULT_SIZE) params.set("limit", String(next.limit));
  if (next.offset !== 0) params.set("offset", String(next.offset));
  if (next.columns.join(",") !== DEFAULT_COLUMNS.join(","))
    for (const key of next.columns) params.append("col", key);
  const text = params.toString();
  return text === "" ? path : `${path}?${text}`;
}

/** The chosen columns, in the order chosen. */
function shownColumns(state: ListState, all: readonly AssetColumn[]): AssetColumn[] {
  return state.columns
    .map((key) => all.find((column) => column.key === key))
    .filter((column): column is AssetColumn => column !== undefined);
}

/** Every column: Snipe-IT's, then one per custom field. */
async function allColumns(database: InventoryDatabase): Promise<AssetColumn[]> {
  return [...ASSET_COLUMNS, ...customColumns(await listFields(database.db as AnyKysely))];
}

/** What the list's template shows of a page of assets. */
function listView(state: ListState, all: readonly AssetColumn[], total: number, rows: ShownAsset[]) {
  const columns = shownColumns(state, all);
  const lastOffset = total === 0 ? 0 : Math.floor((total - 1) / state.limit) * state.limit;
  const at = (offset: number) => listUrl(state, { offset });
  return {
    state,
    total,
    rows,
    columns,
    headers: columns.map((column) => {
      const current = column.sort !== undefined && column.sort === state.sort;
      const order = current && state.order === "asc" ? "desc" : "asc";
      return {
        column,
        sorted: current ? (state.order === "asc" ? "ascending" : "descending") : undefined,
        href: column.sort ? listUrl(state, { sort: column.sort, order, offset: 0 }) : undefined,
      };
    }),
    from: total === 0 ? 0 : Math.min(state.offset + 1, total),
    to: Math.min(state.offset + state.limit, total),
    pages: {
      first: state.offset > 0 ? at(0) : undefined,
      previous: state.offset > 0 ? at(Math.max(0, state.offset - state.limit)) : undefined,
      next: state.offset + state.limit < total ? at(state.offset + state.limit) : undefined,
      last: state.offset < lastOffset ? at(lastOffset) : undefined,
    },
    exportUrl: listUrl(state, { offset: 0 }, "/hardware/export.csv"),
  };
}

export function registerHardwareList(context: WebContext): void {
  const { app, database } = context;
  const viewers = { onRequest: guard(context, { permission: "assets.view" }) };

  app.get("/hardware", viewers, async (request, reply) => {
    const caller = pageCaller(request);
    const all = await allColumns(database);
    const state = listState(request.query as Record<string, unknown>, all);
    const page = await listAssets(database, caller, serviceQuery(state), scopeOf(state));
    const data = {
      ...listView(state, all, page.total, plain(page.rows) as ShownAsset[]),
      pageSizes: PAGE_SIZES,
      allColumns: all,
      may: {
        create: can(caller, "assets.create"),
        checkout: can(caller, "assets.checkout"),
        checkin: can(caller, "assets.checkin"),
        audit: can(caller, "assets.audit"),
        delete: can(caller, "assets.delete"),
        edit: can(caller, "assets.edit"),
      },
    };
    // htmx asks for the list part alone (a sort, a filter, a page); a history restore wants it all.
    if (wantsPart(request))
      return renderPart(reply.header("hx-push-url", listUrl(state)), "hardware/list", { ...data, oob: true });
    const [statuses, models, categories, locations, companies] = await Promise.all([
      choicesOf(database, caller, "statuslabels"),
      choicesOf(database, caller, "models"),
      choicesOf(database, caller, "categories/asset"),
      choicesOf(database, caller, "locations"),
      choicesOf(database, caller, "companies"),
    ]);
    reply.header("vary", "HX-Request");
    return render(context, request, reply, "hardware/index", {
      title: "Assets",
      ...data,
      choices: { statuses, models, categories, locations, companies },
    });
  });

  // The rows of the current filter as CSV, in id order (keyset pages of the same service, so a
  // large export neither holds every row at once nor slows down page after page).
  app.get("/hardware/export.csv", viewers, async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = pageCaller(request);
    const all = await allColumns(database);
    const state = listState(request.query as Record<string, unknown>, all);
    const columns = shownColumns(state, all);
    const base = serviceQuery(state);
    delete base.offset;
    async function* rows() {
      yield columns.map((column) => column.title);
      let after = 0;
      for (;;) {
        const page = await listAssets(
          database,
          caller,
          { ...base, sort: "id", order: "asc", limit: MAX_RESULTS, after },
          scopeOf(state),
        );
        for (const asset of plain(page.rows) as ShownAsset[])
          yield columns.map((column) => column.text(asset));
        if (page.next === undefined) return;
        after = page.next;
      }
    }
    return (
      reply
        .header("content-type", "text/csv; charset=utf-8")
        .header("content-disposition", 'attachment; filename="assets.csv"')
        .header("cache-control", "no-store")
        // A cell starting with = + - @ is text, not a formula, when the file is opened in a spreadsheet.
        .send(Readable.from(rows()).pipe(stringify({ escape_formulas: true })))
    );
  });
}
