import type { AnyKysely } from "@anvil/core";
import { accessories } from "../../resources/accessories.ts";
import { components } from "../../resources/components.ts";
import { consumables } from "../../resources/consumables.ts";
import { licenses } from "../../resources/licenses.ts";
import { users } from "../../resources/users.ts";
import { activityReport } from "../../services/activity-report.ts";
import { dueFilter, listAssets } from "../../services/assets.ts";
import type { InventoryDatabase } from "../../services/database.ts";
import { type Caller, can } from "../../services/permissions.ts";
import { listResource, type ResourceDefinition } from "../../services/resource.ts";
import { labelSlices } from "../../services/statuslabel-charts.ts";

// What the dashboard (`/`) shows a signed-in user, each part only to those the API would answer
// it for, through the same services: how many of each kind of record there are (the lists' totals),
// assets by status label (the chart's numbers of /statuslabels/assets/name, drawn in the browser
// from the table that also lists them), the assets due for audit and for check-in (the services of
// /hardware/audits/due-or-overdue and /hardware/checkins/due-or-overdue) and the latest activity
// (the report of /reports/activity).

/** Rows of each short list on the dashboard; its link leads to the rest. */
const SHORT_LIST = 5;
/** Entries of the latest activity shown. */
const LATEST_ACTIVITY = 10;

interface Counted {
  label: string;
  href: string;
  permission: string;
  total: (database: InventoryDatabase, caller: Caller) => Promise<number>;
}

/** A resource's total as its list counts it: the rows the caller may see. */
function listed(definition: ResourceDefinition) {
  return async (database: InventoryDatabase, caller: Caller) =>
    (await listResource(database, definition, caller, { limit: "1" })).total;
}

/** Snipe-IT's boxes, in its order and words. */
const COUNTED: readonly Counted[] = [
  {
    label: "Assets",
    href: "/hardware",
    permission: "assets.view",
    total: async (database, caller) => (await listAssets(database, caller, { limit: "1" })).total,
  },
  { label: "Licenses", href: "/licenses", permission: "licenses.view", total: listed(licenses) },
  { label: "Accessories", href: "/accessories", permission: "accessories.view", total: listed(accessories) },
  { label: "Consumables", href: "/consumables", permission: "consumables.view", total: listed(consumables) },
  { label: "Components", href: "/components", permission: "components.view", total: listed(components) },
  { label: "People", href: "/users", permission: "users.view", total: listed(users) },
];

/** A colour a status label may carry into an SVG attribute: a hex code or a colour's name. */
const COLOR = /^#?[0-9A-Za-z]{1,9}$/;

/** The first assets due (or overdue) for an audit or a check-in, soonest first, and how many there are. */
async function dueAssets(database: InventoryDatabase, caller: Caller, kind: "audits" | "checkins") {
  const sort = kind === "audits" ? "next_audit_date" : "expected_checkin";
  return listAssets(
    database,
    caller,
    { limit: String(SHORT_LIST), sort, order: "asc" },
    { narrow: dueFilter(kind, "due-or-overdue") },
  );
}

/** Everything the dashboard shows the caller; a part they may not see is left undefined. */
export async function dashboard(database: InventoryDatabase, caller: Caller) {
  const may = (permission: string) => can(caller, permission);
  const [counts, slices, audits, checkins, activity] = await Promise.all([
    Promise.all(
      COUNTED.filter((counted) => may(counted.permission)).map(async (counted) => ({
        label: counted.label,
        href: counted.href,
        total: await counted.total(database, caller),
      })),
    ),
    may("statuslabels.view") ? labelSlices(database.db as AnyKysely, caller) : undefined,
    may("assets.view") ? dueAssets(database, caller, "audits") : undefined,
    may("assets.view") ? dueAssets(database, caller, "checkins") : undefined,
    may("reports.view") ? activityReport(database, caller, { limit: String(LATEST_ACTIVITY) }) : undefined,
  ]);
  return {
    counts,
    byStatus: slices?.map((slice) => ({
      ...slice,
      color: COLOR.test(slice.color) ? slice.color : "#4f5a6b",
    })),
    audits,
    checkins,
    activity,
    // The chart's library, only where there is a chart to draw.
    scripts: slices && slices.length > 0 ? ["status-chart.js"] : [],
  };
}
