import { Readable } from "node:stream";
import { stringify } from "csv-stringify/sync";
import type { FastifyReply, FastifyRequest } from "fastify";
import { unescaped } from "../../convert/format.ts";
import { users } from "../../resources/users.ts";
import { ITEM_TABLES } from "../../services/activity.ts";
import { activityReport, activityReportEntries } from "../../services/activity-report.ts";
import { can } from "../../services/permissions.ts";
import { listResource } from "../../services/resource.ts";
import {
  guard,
  invalidFields,
  pageCaller,
  render,
  renderPart,
  type WebContext,
  wantsPart,
} from "../context.ts";

// Reports: the activity report (Snipe-IT's /reports/activity) with the filters of the API's
// GET /reports/activity, a page at a time, and its download as CSV, through the same service and
// behind the same permission (reports.view).

/** Rows of a page of the report. */
const PAGE_ROWS = 25;

/** The query parameters the page passes on to the service (the API's filters, and the page). */
const FILTERS = [
  "search",
  "action_type",
  "item_type",
  "item_id",
  "target_type",
  "target_id",
  "created_by",
  "start_date",
  "end_date",
  "sort",
  "order",
] as const;

/** The columns the report sorts by, as the table names them (the service's sorts). */
const SORTED_COLUMNS = [
  ["Date", "created_at"],
  ["Admin", "created_by"],
  ["Action", "action_type"],
  ["Type", "item_type"],
] as const;

/** The raw action types the log holds (spec §22), as the report names them. */
const ACTION_TYPES = [
  ["checkout", "checkout"],
  ["checkin from", "checkin from"],
  ["create", "create new"],
  ["update", "update"],
  ["delete", "delete"],
  ["restore", "restore"],
  ["audit", "audit"],
  ["requested", "requested"],
  ["accepted", "accepted"],
  ["declined", "declined"],
  ["uploaded", "uploaded"],
  ["add seats", "add seats"],
  ["delete seats", "delete seats"],
] as const;

/** Item types whose short model name does not read as a word once capitalized. */
const TYPE_NAMES: Readonly<Record<string, string>> = {
  assetmodel: "Asset Model",
  statuslabel: "Status Label",
};

/** The log's item types, in a person's words. */
const ITEM_TYPES = Object.keys(ITEM_TABLES).map((type) => ({
  value: type,
  label: TYPE_NAMES[type] ?? type[0].toUpperCase() + type.slice(1),
}));

/** The filters as asked: each a string, "" when absent. */
function filtersOf(request: FastifyRequest): Record<(typeof FILTERS)[number], string> {
  const query = request.query as Record<string, unknown>;
  return Object.fromEntries(
    FILTERS.map((name) => [name, typeof query[name] === "string" ? (query[name] as string).trim() : ""]),
  ) as Record<(typeof FILTERS)[number], string>;
}

/** The report's URL with these filters (those given) and this offset. */
function reportUrl(path: string, filters: Record<string, string>, offset?: number): string {
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== ""));
  if (offset) query.set("offset", String(offset));
  const text = query.toString();
  return text === "" ? path : `${path}?${text}`;
}

/** One log entry as a CSV record: the text as stored (the service's is HTML-escaped for pages). */
function csvRecord(entry: Awaited<ReturnType<typeof activityReport>>["rows"][number]): string[] {
  const changed = entry.log_meta
    ? Object.entries(entry.log_meta as Record<string, { old: unknown; new: unknown }>)
        .map(([field, change]) => `${field}: ${String(change.old ?? "")} => ${String(change.new ?? "")}`)
        .join("; ")
    : "";
  return [
    entry.created_at?.datetime ?? "",
    unescaped(entry.admin?.name) ?? "",
    entry.action_type,
    entry.item?.type ?? "",
    unescaped(entry.item?.name) ?? "",
    unescaped(entry.target?.name) ?? "",
    unescaped(entry.note) ?? "",
    String(entry.remote_ip ?? ""),
    unescaped(entry.user_agent) ?? "",
    String(entry.action_source ?? ""),
    changed,
  ];
}

const CSV_HEADER = [
  "Date",
  "Admin",
  "Action",
  "Type",
  "Item",
  "To",
  "Notes",
  "Remote IP",
  "User Agent",
  "Action Source",
  "Changed",
];

/**
 * A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or a carriage return
 * first) starts with an apostrophe instead: the log holds text anyone may have typed.
 */
function inertCell(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function csvLine(cells: readonly string[]): string {
  return stringify([cells.map(inertCell)]);
}

export function registerReports(context: WebContext): void {
  const { app, database } = context;
  const reporters = { onRequest: guard(context, { permission: "reports.view" }) };

  app.get("/reports/activity", reporters, async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = pageCaller(request);
    const filters = filtersOf(request);
    const asked = Number((request.query as Record<string, unknown>).offset);
    const offset = Number.isSafeInteger(asked) && asked > 0 ? asked : 0;
    // The people the Admin filter chooses from, when the user may list people.
    const admins = can(caller, "users.view")
      ? (await listResource(database, users, caller, { limit: "500", sort: "first_name", order: "asc" })).rows
      : undefined;
    const view = {
      title: "Activity Report",
      filters,
      actionTypes: ACTION_TYPES,
      itemTypes: ITEM_TYPES,
      admins,
      errors: {} as Record<string, string[]>,
      report: undefined as Awaited<ReturnType<typeof activityReport>> | undefined,
      download: reportUrl("/reports/activity.csv", filters),
      previous: undefined as string | undefined,
      next: undefined as string | undefined,
      columns: [] as { label: string; sorted?: string; href: string }[],
      first: 0,
      last: 0,
    };
    let status = 200;
    try {
      const report = await activityReport(database, caller, {
        ...filters,
        offset: String(offset),
        limit: String(PAGE_ROWS),
      });
      view.report = report;
      view.first = report.total === 0 ? 0 : offset + 1;
      view.last = offset + report.rows.length;
      if (offset > 0)
        view.previous = reportUrl("/reports/activity", filters, Math.max(0, offset - PAGE_ROWS));
      if (view.last < report.total) view.next = reportUrl("/reports/activity", filters, offset + PAGE_ROWS);
      // A sorted column's link turns its order round; another column's sorts by it, newest first.
      const { sort, order } = report.params;
      view.columns = SORTED_COLUMNS.map(([label, column]) => ({
        label,
        sorted: column === sort ? (order === "asc" ? "ascending" : "descending") : undefined,
        href: reportUrl("/reports/activity", {
          ...filters,
          sort: column,
          order: column === sort && order === "desc" ? "asc" : "desc",
        }),
      }));
    } catch (error) {
      view.errors = invalidFields(error);
      status = 422;
    }
    // htmx swaps the report in place, the form with its messages too (it swaps no 4xx answer).
    if (wantsPart(request)) return renderPart(reply, "reports/activity-body", view);
    return render(context, request, reply, "reports/activity", view, status);
  });

  app.get("/reports/activity.csv", reporters, async (request, reply) => {
    const caller = pageCaller(request);
    const entries = activityReportEntries(database, caller, filtersOf(request));
    // The first entry is read before anything is sent: a filter the service refuses (a date
    // that is no date) is the 422 page, not a download cut short.
    let first: Awaited<ReturnType<typeof entries.next>>;
    try {
      first = await entries.next();
    } catch (error) {
      const message = Object.values(invalidFields(error)).flat().join(" ");
      return render(context, request, reply, "error", { title: "Error 422", message }, 422);
    }
    async function* lines() {
      yield csvLine(CSV_HEADER);
      if (first.done) return;
      yield csvLine(csvRecord(first.value));
      for await (const entry of entries) yield csvLine(csvRecord(entry));
    }
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="activity-report-${day}.csv"`)
      .header("cache-control", "no-store")
      .send(Readable.from(lines()));
  });
}
